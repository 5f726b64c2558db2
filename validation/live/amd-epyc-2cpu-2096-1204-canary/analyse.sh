#!/bin/sh
# analyse.sh DIR: the runs of run.sh (or run2.sh) beside the canaries read
# just before each: per run its Mbit/s, the reader's CPU busy %, its reads
# a second and the cycles a read on that CPU (busy x 2.096 GHz / reads),
# then each canary's ns a step on CPUs 0 and 1 (tools/bin/cpuspeed --work
# chain,ilp,copy,syscall, each CPU in turn; T-: --together, both CPUs at
# once); last, per row and canary, Spearman's rank correlation between the
# canary's reading and the run's cycles a read (ties ranked in order).
# slow%: what tools/measure-live's default canary would call the run, the
# worse CPU's T-ilp against that CPU's median over all the file's marks.
# Run from the checkout's top:  sh validation/live/amd-epyc-2cpu-2096-1204-canary/analyse.sh validation/live/amd-epyc-2cpu-2096-1204-canary/s1
set -eu
D=${1:?usage: analyse.sh DIR}
awk -v D="$D" '
	/^== / { m = $2; tog = 0; next }
	/^-- together/ { tog = 1; next }
	/^cpu / { ns[m, $5, tog, $2] = $3; if (tog && $5 == "ilp") { nb[$2]++; B[$2, nb[$2]] = $3 }; next }
	function median(c,    i, j, t, n, v) {
		n = nb[c]; for (i = 1; i <= n; i++) v[i] = B[c, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function rank(v, n, r,    i, j, c) {
		for (i = 1; i <= n; i++) { c = 0; for (j = 1; j <= n; j++) if (v[j] < v[i] || (v[j] == v[i] && j < i)) c++; r[i] = c }
	}
	function spearman(x, y, n,    rx, ry, i, mx, my, sxy, sxx, syy) {
		rank(x, n, rx); rank(y, n, ry); mx = my = (n - 1) / 2
		for (i = 1; i <= n; i++) { sxy += (rx[i] - mx) * (ry[i] - my); sxx += (rx[i] - mx) ^ 2; syy += (ry[i] - my) ^ 2 }
		return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0
	}
	END {
		nw = split("chain ilp copy syscall", W, " ")
		base0 = median(0); base1 = median(1)
		printf "%-4s %6s %6s %7s %7s %6s", "run", "mbps", "rcv%", "reads", "cyc/rd", "slow%"
		for (t = 0; t <= 1; t++) for (i = 1; i <= nw; i++) printf " %13s", (t ? "T-" : "") W[i]
		printf "   (ns a step, CPU 0/1)\n"
		for (p = 1; p <= 2; p++) {
			row = p == 1 ? "a" : "b"; n = 0
			for (r = 1; r <= 99; r++) {
				id = row r; file = D "/" id ".txt"; data = ""
				while ((getline line < file) > 0) if (line !~ /^(#|mtu)/ && line ~ /[0-9]/) data = line
				close(file)
				if (data == "") continue
				split(data, x, /[ \t]+/)
				cyc = x[6] / 100 * 2.096e9 / x[20]
				n++; C[row, n] = cyc
				s0 = 100 * (ns[id, "ilp", 1, 0] / base0 - 1); s1 = 100 * (ns[id, "ilp", 1, 1] / base1 - 1)
				printf "%-4s %6s %6s %7s %7.0f %6.1f", id, x[4], x[6], x[20], cyc, (s0 > s1 ? s0 : s1)
				for (t = 0; t <= 1; t++) for (i = 1; i <= nw; i++) {
					printf " %6.2f/%6.2f", ns[id, W[i], t, 0], ns[id, W[i], t, 1]
					for (c = 0; c <= 1; c++) V[row, t, i, c, n] = ns[id, W[i], t, c]
				}
				printf "\n"
			}
			N[row] = n
		}
		for (p = 1; p <= 2; p++) {
			row = p == 1 ? "a" : "b"; n = N[row]
			if (n < 3) continue
			printf "Spearman, canary vs cycles a read, %s runs (%d):", row, n
			for (k = 1; k <= n; k++) y[k] = C[row, k]
			for (t = 0; t <= 1; t++) for (i = 1; i <= nw; i++) for (c = 0; c <= 1; c++) {
				for (k = 1; k <= n; k++) v[k] = V[row, t, i, c, k]
				printf " %s%s/%d %+.2f", (t ? "T-" : ""), W[i], c, spearman(v, y, n)
			}
			printf "\n"
		}
	}' "$D/marks.txt"
