#!/bin/sh
# import.test.sh: the importers (tools/import-*.c) run as a user runs them.
#
# Oracles: the report tables' own figures (exact, as printed, or converted
# by hand: LKP totals / 300 s), the hand-made iperf3 samples in
# tests/data/import/, and the committed validation CSVs (import-all.sh must
# regenerate them byte for byte).  Every malformed input must exit with
# status 2 and name file:line (file:line:column for JSON).
#
#   sh tests/import.test.sh [BUILD_DIR]    (BUILD_DIR unused; run by run-tests.sh)
# IMPORT_BIN overrides the importer directory (default tools/bin), e.g. to
# run sanitizer builds.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
BIN=${IMPORT_BIN:-$ROOT/tools/bin}
DATA=tests/data/import
RAW=validation/raw
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0

for b in import-netperf import-lkp import-iperf3; do
	[ -x "$BIN/$b" ] || { echo "import.test: $BIN/$b not built (run make)" >&2; exit 1; }
done

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# field CSV ID COLUMN: the cell of run ID in COLUMN (all fields quoted, as runs_write writes).
field() {
	awk -v id="$2" -v col="$3" '
		function unq(s) { sub(/^"/, "", s); sub(/"$/, "", s); return s }
		BEGIN { FS = "\",\"" }
		NR == 1 { for (i = 1; i <= NF; i++) c[unq($i)] = i; next }
		unq($1) == id { if (!(col in c)) { print "<no column>"; exit } print unq($c[col]); exit }
	' "$1"
}

# expect_val CSV ID COLUMN VALUE ('-' = an empty cell: not measured)
expect_val() {
	got=$(field "$1" "$2" "$3")
	want=$4
	[ "$want" = - ] && want=
	if [ "$got" = "$want" ]; then ok; else bad "$1 $2 $3: got '$got', want '$want'"; fi
}

# expect_fail NAME WANT_SUBSTRING CMD...: exit status 2 and WANT in stderr.
expect_fail() {
	name=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	st=$?
	if [ $st -ne 2 ]; then
		bad "$name: exit $st, want 2 ($(cat "$T/err"))"
	elif ! grep -qF -- "$want" "$T/err"; then
		bad "$name: stderr '$(cat "$T/err")' lacks '$want'"
	elif [ "$(grep -v -e ': skipped ' -e ': warning: ' -e '^usage' -e '^  ' "$T/err" | wc -l)" -ne 1 ]; then
		bad "$name: want one line, got: $(cat "$T/err")"
	else
		ok
	fi
}

NP="$BIN/import-netperf"
LKP="$BIN/import-lkp"
IP="$BIN/import-iperf3"

# ------------------------------------------------------------ netperf
out=$T/np.csv
"$NP" -o "$out" --source "src" --scenario s.cfg --id-prefix r "$RAW/freebsd-sendfile-tso-myri10ge.table" 2>"$T/err" \
	&& ok || bad "netperf: report table rejected: $(cat "$T/err")"
[ "$(wc -l <"$out")" -eq 6 ] && ok || bad "netperf: want header + 5 rows, got $(wc -l <"$out") lines"
# row: id throughput cpu_send cpu_recv sd_send sd_recv
while read -r id tput cs cr ss sr; do
	expect_val "$out" "$id" throughput_mbps "$tput"
	expect_val "$out" "$id" throughput_total_mbps "$tput"
	expect_val "$out" "$id" cpu_send_pct "$cs"
	expect_val "$out" "$id" cpu_recv_pct "$cr"
	expect_val "$out" "$id" sd_send_us_per_kb "$ss"
	expect_val "$out" "$id" sd_recv_us_per_kb "$sr"
	expect_val "$out" "$id" cs_per_s -
done <<'EOF'
r1 2163.08 100 19.35 3.787 1.466
r2 4367.18 71.54 42.07 1.342 1.578
r3 1882.73 86.15 18.43 3.749 1.604
r4 6961.08 47.69 60.11 0.561 1.415
r5 9333 28.98 75.23 0.254 1.321
EOF
expect_val "$out" r3 note "With patch; netperf validation/raw/freebsd-sendfile-tso-myri10ge.table:11: sockets recv 87380 send 393216 bytes, message 393216 bytes, 10.01 s"
expect_val "$out" r5 scenario s.cfg

# importing again into the same file: duplicate ids, file unchanged
cp "$out" "$T/np.before"
expect_fail "netperf dup" "np.csv:2: id 'r1' is already there" \
	"$NP" -o "$out" --source src --scenario s.cfg --id-prefix r "$RAW/freebsd-sendfile-tso-myri10ge.table"
cmp -s "$out" "$T/np.before" && ok || bad "netperf: failed import changed the output"

# per-row options: counts must be 1 or one per row
expect_fail "netperf count" "2 --scenario given for 5 data rows" \
	"$NP" -o "$T/x.csv" --source src --scenario a.cfg --scenario b.cfg "$RAW/freebsd-sendfile-tso-myri10ge.table"
expect_fail "netperf ids" "3 --id given for 5 data rows" \
	"$NP" -o "$T/x.csv" --source src --scenario a.cfg --id a --id b --id c "$RAW/freebsd-sendfile-tso-myri10ge.table"
expect_fail "netperf overrides" "overrides: 'sndbuf=1' is not section.key=value" \
	"$NP" -o "$T/x.csv" --source src --scenario a.cfg --overrides sndbuf=1 "$RAW/freebsd-sendfile-tso-myri10ge.table"
[ ! -e "$T/x.csv" ] && ok || bad "netperf: output written despite errors"
expect_fail "netperf usage" "usage:" "$NP"
expect_fail "netperf usage2" "missing --scenario" "$NP" -o "$T/x.csv" --source s "$RAW/freebsd-sendfile-tso-myri10ge.table"
expect_fail "netperf bad opt" "unknown or incomplete option '--bogus'" "$NP" --bogus
expect_fail "netperf no input" "cannot open '$T/nope'" "$NP" -o "$T/x.csv" --source s --scenario a "$T/nope"

HDR='Recv   Send    Send                          Utilization       Service Demand
Socket Socket  Message  Elapsed              Send     Recv     Send    Recv
Size   Size    Size     Time     Throughput  local    remote   local   remote
bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB
'
np_case() { # NAME WANT CONTENT
	printf '%s' "$3" >"$T/in.txt"
	expect_fail "netperf $1" "$2" "$NP" -o "$T/x.csv" --source s --scenario a.cfg "$T/in.txt"
}
np_case truncated "$T/in.txt:6: truncated data row: 7 fields, expected 9" \
	"$HDR
 87380 393216 393216    10.00      2163.08   100.00   19.35
"
np_case junk "$T/in.txt:7: not a netperf data row, header or label: 'Throughput was great'" \
	"$HDR
 87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466
Throughput was great
"
np_case non-number "$T/in.txt:5: field 5 (throughput): '2163.O8' is not a number" \
	"$HDR 87380 393216 393216    10.00      2163.O8   100.00   19.35    3.787   1.466
"
np_case too-many "$T/in.txt:5: data row has 10 fields, expected 9" \
	"$HDR 87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466 7
"
np_case header-only "$T/in.txt:1: netperf header without data rows" "$HDR
"
np_case header-cut "$T/in.txt:1: netperf header ends before its units line" \
	'Recv   Send    Send                          Utilization       Service Demand
Socket Socket  Message  Elapsed              Send     Recv     Send    Recv
'
np_case empty "$T/in.txt:1: empty file" ""
np_case no-table "$T/in.txt:2: no netperf result table" 'hello
world
'
np_case unit "$T/in.txt:4: throughput unit 'MBytes/s' not supported" \
	"$(printf '%s' "$HDR" | sed 's|10^6bits/s|MBytes/s  |')
 87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466
"
np_case label-last "$T/in.txt:7: label 'With patch' is not followed by a data row" \
	"$HDR
 87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466
With patch:
"
# a banner before the header, -f g units and a table without CPU columns are fine
printf 'TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 10.0.0.2 () port 0 AF_INET\n%s\n 87380  16384  16384    10.00       9.41\n' \
	"$(printf 'Recv   Send    Send\nSocket Socket  Message  Elapsed\nSize   Size    Size     Time     Throughput\nbytes  bytes   bytes    secs.    10^9bits/s\n')" >"$T/in.txt"
"$NP" -o "$T/g.csv" --source s --scenario a.cfg --id g "$T/in.txt" 2>"$T/err" && ok || bad "netperf -f g: $(cat "$T/err")"
expect_val "$T/g.csv" g throughput_mbps 9410
expect_val "$T/g.csv" g cpu_send_pct -

# ---------------------------------------------------------------- LKP
out=$T/lkp.csv
"$LKP" -o "$out" --source src --base-scenario b.cfg --new-scenario n.cfg --base-overrides 'link.mtu=16436' \
	"$RAW/lkp-loopback-mtu64k.table" 2>"$T/err" && ok || bad "lkp: report table rejected: $(cat "$T/err")"
B=lkp-2a6c8c7998f95b1
N=lkp-0cf833aefaa85bbfce3ff7048
# column base new  (totals / 300 s; per-second means and throughput as printed)
while read -r col b n; do
	expect_val "$out" $B "$col" "$b"
	expect_val "$out" $N "$col" "$n"
done <<'EOF'
throughput_mbps 1233 1805
netrx_softirqs_per_s 15549.33 8137.993333333333
res_ipis_per_s 97.38 14.366666666666667
cs_per_s 59630 3336
intr_per_s 1233 1031
pgalloc_per_s 1503.2333333333333 642.25
pgfree_per_s 1510.32 649.3
throughput_mbps_cv 0.04 0
res_ipis_per_s_cv 0.09 0.17
cs_per_s_cv 0.12 0.08
netrx_softirqs_per_s_cv 0.06 0
throughput_total_mbps - -
cpu_send_pct - -
EOF
expect_val "$out" $B scenario b.cfg
expect_val "$out" $N scenario n.cfg
expect_val "$out" $B overrides link.mtu=16436
expect_val "$out" $N overrides -
for m in slabinfo.kmalloc-1024.active_objs proc-vmstat.numa_hit proc-vmstat.numa_local vmstat.procs.r; do
	grep -qF "skipped '$m' (no tcpsim metric)" "$T/err" && ok || bad "lkp: '$m' not reported as skipped"
done
[ "$(grep -c skipped "$T/err")" -eq 7 ] && ok || bad "lkp: want 7 skipped metrics, got $(grep -c skipped "$T/err")"
grep -q warning "$T/err" && bad "lkp: unexpected warning: $(grep warning "$T/err")" || ok

# --seconds, ids, and lines without %change or without '~ sd%'
printf '      1000 ~ 4%%      1000 ~ 0%%   netperf.Throughput_Mbps\n  6000   3000   interrupts.RES\n    10 \302\261 2%%  +100.0%%   20 \302\261 1%%  vmstat.system.cs\n' >"$T/in.txt"
"$LKP" -o "$T/l2.csv" --source s --base-scenario b.cfg --new-scenario n.cfg --base-id a --new-id b --seconds 60 "$T/in.txt" 2>"$T/err" \
	&& ok || bad "lkp: variant lines rejected: $(cat "$T/err")"
expect_val "$T/l2.csv" a throughput_mbps 1000
expect_val "$T/l2.csv" a res_ipis_per_s 100
expect_val "$T/l2.csv" b res_ipis_per_s 50
expect_val "$T/l2.csv" a res_ipis_per_s_cv "<no column>" # no run has that spread
expect_val "$T/l2.csv" b cs_per_s 20
expect_val "$T/l2.csv" b cs_per_s_cv 0.01
# a %change that contradicts the values is a warning, not an error
printf '  100 ~ 1%%  +50.0%%  120 ~ 1%%  vmstat.system.in\n' >"$T/in.txt"
"$LKP" -o "$T/l3.csv" --source s --base-scenario b.cfg --new-scenario n.cfg "$T/in.txt" 2>"$T/err" && ok || bad "lkp: warning case failed"
grep -qF "$T/in.txt:1: warning: vmstat.system.in: %change +50.0% but the values give +20.0%" "$T/err" && ok || bad "lkp: no warning: $(cat "$T/err")"

lkp_case() { # NAME WANT CONTENT
	printf '%s' "$3" >"$T/in.txt"
	expect_fail "lkp $1" "$2" "$LKP" -o "$T/x.csv" --source s --base-scenario b.cfg --new-scenario n.cfg "$T/in.txt"
}
H='2a6c8c7998f95b1  0cf833aefaa85bbfce3ff7048
---------------  -------------------------
'
lkp_case truncated "$T/in.txt:4: truncated: expected the new value after %change" \
	"$H      1233 ~ 4%     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps
     29214 ~ 9%     -85.2%
"
lkp_case no-metric "$T/in.txt:3: truncated: no metric name" \
	"$H      1233 ~ 4%     +46.4%       1805 ~ 0%
"
lkp_case junk "$T/in.txt:3: not an LKP comparison line" "${H}the quick brown fox
"
lkp_case sd "$T/in.txt:1: '~' must be followed by a standard deviation like '4%'" \
	"      1233 ~ 4     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps
"
lkp_case non-number "$T/in.txt:1: a value runs into other text" \
	"      1233 ~ 4%     +46.4%       18O5 ~ 0%   netperf.Throughput_Mbps
"
lkp_case extra "$T/in.txt:1: text after the metric name" \
	"      1233 ~ 4%     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps 7
"
lkp_case dup "$T/in.txt:2: 'netperf.Throughput_Mbps' appears twice (also line 1)" \
	"      1233 ~ 4%     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps
      1233 ~ 4%     +46.4%       1805 ~ 0%   netperf.Throughput_Mbps
"
lkp_case empty "$T/in.txt:1: empty file" ""
lkp_case header-only "$T/in.txt:2: no LKP comparison lines" "$H"
expect_fail "lkp seconds" "--seconds 'x': not a positive number" \
	"$LKP" -o "$T/x.csv" --source s --base-scenario b --new-scenario n --seconds x "$RAW/lkp-loopback-mtu64k.table"
expect_fail "lkp usage" "missing --base-scenario or --new-scenario" \
	"$LKP" -o "$T/x.csv" --source s --base-scenario b "$RAW/lkp-loopback-mtu64k.table"
expect_fail "lkp same ids" "duplicate id 'same'" \
	"$LKP" -o "$T/x.csv" --source s --base-scenario b --new-scenario n --base-id same --new-id same "$RAW/lkp-loopback-mtu64k.table"
[ ! -e "$T/x.csv" ] && ok || bad "lkp: output written despite errors"

# -------------------------------------------------------------- iperf3
out=$T/ip.csv
"$IP" -o "$out" --source "hand-made sample" --scenario lo.cfg "$DATA/iperf3-client.json" 2>"$T/err" \
	&& ok || bad "iperf3: client sample rejected: $(cat "$T/err")"
"$IP" -o "$out" --source "hand-made sample" --scenario lo.cfg --id rev "$DATA/iperf3-reverse.json" 2>"$T/err" \
	&& ok || bad "iperf3: reverse sample rejected: $(cat "$T/err")"
# 9126805504 bytes * 8 / 2.000187 s / 1e6 (end.sum_received of the samples)
want=$(awk 'BEGIN { printf "%.6f", 9126805504 * 8 / 2.000187 / 1e6 }')
for id in iperf3-client rev; do
	got=$(field "$out" $id throughput_total_mbps)
	[ "$(awk -v g="$got" 'BEGIN { printf "%.6f", g }')" = "$want" ] && ok || bad "iperf3 $id: throughput_total_mbps $got, want $want"
	got=$(field "$out" $id throughput_mbps)
	[ "$(awk -v g="$got" 'BEGIN { printf "%.6f", g }')" = "$want" ] && ok || bad "iperf3 $id: throughput_mbps $got, want $want"
done
# client = sender: host_total is the sender's CPU; with -R the client receives
expect_val "$out" iperf3-client cpu_send_pct 99.512345
expect_val "$out" iperf3-client cpu_recv_pct 71.204511
expect_val "$out" rev cpu_send_pct 99.127604
expect_val "$out" rev cpu_recv_pct 68.930215
# the same JSON as a server printed it: host is the receiver
sed 's/"connecting_to"/"accepted_connection"/' "$DATA/iperf3-client.json" >"$T/server.json"
"$IP" -o "$out" --source s --scenario lo.cfg --id srv "$T/server.json" 2>"$T/err" && ok || bad "iperf3: server form: $(cat "$T/err")"
expect_val "$out" srv cpu_send_pct 71.204511
expect_val "$out" srv cpu_recv_pct 99.512345

ip_case() { # NAME WANT FILE
	expect_fail "iperf3 $1" "$2" "$IP" -o "$T/x.csv" --source s --scenario lo.cfg "$3"
}
head -c 1500 "$DATA/iperf3-client.json" >"$T/cut.json"
ip_case truncated "$T/cut.json:$(awk 'END { print NR }' "$T/cut.json"):" "$T/cut.json"
grep -q "invalid JSON" "$T/err" && ok || bad "iperf3 truncated: $(cat "$T/err")"
printf '{\n  "start": {\n    "x": 1,,\n  }\n}\n' >"$T/junk.json"
ip_case junk "$T/junk.json:3:12: invalid JSON" "$T/junk.json"
: >"$T/empty.json"
ip_case empty "$T/empty.json:1:0: invalid JSON" "$T/empty.json"
sed 's/"sum_received"/"sum_receivedX"/' "$DATA/iperf3-client.json" >"$T/miss.json"
ip_case missing "$T/miss.json: missing field 'end.sum_received.bits_per_second'" "$T/miss.json"
sed 's/"remote_total":.*/"remote_total": "high",/' "$DATA/iperf3-client.json" >"$T/type.json"
ip_case type "$T/type.json: field 'end.cpu_utilization_percent.remote_total' is not a number" "$T/type.json"
printf '{"start": {"connecting_to": {"host": "x", "port": 5201}}, "error": "unable to connect to server: Connection refused"}\n' >"$T/err.json"
ip_case error "$T/err.json: iperf3 reported an error: unable to connect to server" "$T/err.json"
sed 's/"protocol":.*"TCP"/"protocol":	"UDP"/' "$DATA/iperf3-client.json" >"$T/udp.json"
ip_case udp "field 'start.test_start.protocol' is not \"TCP\"" "$T/udp.json"
printf '[1, 2]\n' >"$T/arr.json"
ip_case array "$T/arr.json: not iperf3 JSON" "$T/arr.json"
expect_fail "iperf3 usage" "missing --scenario" "$IP" -o "$T/x.csv" --source s "$DATA/iperf3-client.json"
[ ! -e "$T/x.csv" ] && ok || bad "iperf3: output written despite errors"

# ------------------------------------------------- validation CSVs
mkdir -p "$T/val"
IMPORT_BIN=$BIN sh tools/import-all.sh "$T/val" >/dev/null 2>"$T/err" && ok || bad "import-all.sh: $(cat "$T/err")"
for f in lkp-loopback-atom.csv myri10ge-sendfile.csv; do
	cmp -s "$T/val/$f" "validation/$f" && ok || bad "validation/$f differs from what tools/import-all.sh makes"
done

echo "import: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
