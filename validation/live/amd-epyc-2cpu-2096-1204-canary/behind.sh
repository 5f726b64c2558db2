#!/bin/sh
# behind.sh: the reader behind its data at MTU 1500 with 64 KB writes, by
# cost key, machine against model: cycles a write on the writer's CPU and
# a read on the reader's.  The machine's side is rep 3 of
# prof-1500-64k-behind.txt (its busy share x 2.096 GHz / its writes and
# reads a second; the key table is tools/wakeups-live's, from the script
# kept in perf-1500-64k-behind/); the model's is tcpsim run of the lo
# scenario with the committed .fitted.cfg at validate.sh's run settings
# (validate-run.cfg; its reader is behind there too), --folded-cpus, then
# --parse-folded.
# Run from the checkout's top, after make.
set -eu
D=validation/live/amd-epyc-2cpu-2096-1204-canary
M=amd-epyc-2cpu-2096-1204
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/run.cfg" <<CFG
include = $(pwd)/scenarios/live/$M-lo.cfg
include = $(pwd)/validation/live/$M.fitted.cfg
include = $(pwd)/validation/live/validate-run.cfg
[run]
cost_jitter = 0
CFG
./tcpsim run "$T/run.cfg" -s link.mtu=1500 -s app.send_size=64K -s app.recv_size=64K \
	--folded "$T/f" --folded-cpus --format json >"$T/run.json"
tools/wakeups-live --parse-folded "$T/f" >"$T/keys"
# the model's writes (= reads: 64 KB each) a second and each CPU's busy share
mod=$(awk '
	/"throughput_mbps"/ { gsub(/[",]/, ""); t = $2 }
	/"snd_cpu_busy_pct"/ { gsub(/[",]/, ""); s = $2 }
	/"rcv_cpu_busy_pct"/ { gsub(/[",]/, ""); r = $2 }
	END { n = t * 1e6 / 8 / 65536; printf "%.0f %.1f %.0f %.0f", t, n, s / 100 * 2.096e9 / n, r / 100 * 2.096e9 / n }' "$T/run.json")
mach=$(awk '!/^#/ && $3 == 3 { printf "%s %.0f %.0f", $4, $5 / 100 * 2.096e9 / $21, $6 / 100 * 2.096e9 / $20 }' $D/prof-1500-64k-behind.txt)
set -- $mod $mach
echo "machine (rep 3, reader behind): $5 Mbit/s, $6 cycles a write, $7 a read"
echo "model (committed fit, reader behind): $1 Mbit/s, $3 cycles a write, $4 a read"
printf "%-16s %9s %9s %9s %9s\n" key "mach wr" "model wr" "mach rd" "model rd"
awk -v mw="$3" -v mr="$4" -v hw="$6" -v hr="$7" '
	FNR == 1 { f++ }
	f == 1 && /^#   [a-z_]+ +[0-9.]+ +[0-9.]+/ { ms[$2] = $3; mr_[$2] = $4; k[$2] = 1; next }
	f == 2 && /by tcpsim cost key/ { r++; on = (r == 3); next }
	f == 2 && on && /^#   [a-z_]+ +[0-9.]+ +[0-9.]+$/ { hs[$2] = $3; hr_[$2] = $4; k[$2] = 1 }
	END {
		for (x in k) if (hs[x] + ms[x] + hr_[x] + mr_[x] > 0)
			printf "%-16s %9.0f %9.0f %9.0f %9.0f\n", x, hs[x] / 100 * hw, ms[x] / 100 * mw, hr_[x] / 100 * hr, mr_[x] / 100 * mr
	}' "$T/keys" $D/prof-1500-64k-behind.txt | sort -k1,1
