/*
 * test_procstat: the /proc snapshot parsers and deltas (tools/lib/procstat.c).
 *
 * Oracles: hand-written /proc texts whose sums are counted by hand, and a
 * recorded snapshot pair (tests/data/live/lo-before, lo-after: one 3 s
 * iperf3 run over a namespace's loopback on a 2-CPU machine) whose deltas
 * were computed independently (a Python script reading the same files; the
 * figures are written here as it printed them).  Every malformed input
 * must give one error naming file and line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "procstat.h"
#include "util.h"

#define DATA "tests/data/live"

static const char stat_text[] =
	"cpu  100 1 50 800 3 0 7 2 0 0\n"
	"cpu0 60 1 20 400 1 0 4 1 0 0\n"
	"cpu1 40 0 30 400 2 0 3 1 0 0\n"
	"intr 12345 0 0 7 0\n"
	"ctxt 999\n"
	"btime 1795982264\n"
	"processes 40340\n";

static const char softirqs_text[] =
	"                    CPU0       CPU1       \n"
	"          HI:          0          0\n"
	"      NET_TX:          5          0\n"
	"      NET_RX:        875       1059\n"
	"       TIMER:      53256      60297\n"
	"     HRTIMER:       3980        359\n"
	"         RCU:     106991     112472\n";

static const char interrupts_text[] =
	"           CPU0       CPU1       \n"
	" 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
	"LOC:     334099     288290   Local timer interrupts\n"
	"RES:      44006      35685   Rescheduling interrupts\n"
	"CAL:      61406      71668   Function call interrupts\n";

static void expect_err(int rc, const struct tcpsim_err *err, const char *want)
{
	assert_int_equal(rc, TCPSIM_EUSAGE);
	if (!strstr(err->msg, want))
		fail_msg("error '%s' lacks '%s'", err->msg, want);
}

static void test_stat(void **state)
{
	(void)state;
	struct procstat_sys *s = xcalloc(1, sizeof(*s));
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(procstat_parse_stat(s, stat_text, "stat", &err), TCPSIM_OK);
	assert_int_equal(s->ncpus, 2);
	assert_int_equal(s->cpu[PS_USER], 100);
	assert_int_equal(s->cpu[PS_SOFTIRQ], 7);
	assert_int_equal(s->cpu[PS_STEAL], 2);
	assert_int_equal(s->cpu_n[1][PS_SYSTEM], 30);
	assert_int_equal(s->intr, 12345);
	assert_int_equal(s->ctxt, 999);

	/* an old kernel's four columns are accepted, the rest are zero */
	err_clear(&err);
	assert_int_equal(procstat_parse_stat(s, "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5\nctxt 6\n", "old",
					     &err),
			 TCPSIM_OK);
	assert_int_equal(s->cpu[PS_IDLE], 4);
	assert_int_equal(s->cpu[PS_STEAL], 0);

	err_clear(&err);
	expect_err(procstat_parse_stat(s, "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 5\n", "f", &err), &err,
		   "f: no 'ctxt' line");
	err_clear(&err);
	expect_err(procstat_parse_stat(s, "cpu  1 2 x 4\n", "f", &err), &err, "f:1: cpu line");
	err_clear(&err);
	expect_err(procstat_parse_stat(s, "cpu  1 2 3 4\ncpu1 1 2 3 4\n", "f", &err), &err,
		   "f:2: cpu1 out of order");
	err_clear(&err);
	expect_err(procstat_parse_stat(s, "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr -5\nctxt 1\n", "f", &err),
		   &err, "f:3: intr");
	free(s);
}

static void test_tables(void **state)
{
	(void)state;
	struct procstat_sys *s = xcalloc(1, sizeof(*s));
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(procstat_parse_softirqs(s, softirqs_text, "softirqs", &err), TCPSIM_OK);
	assert_int_equal(s->netrx_softirqs, 875 + 1059);
	assert_int_equal(procstat_parse_interrupts(s, interrupts_text, "interrupts", &err), TCPSIM_OK);
	assert_int_equal(s->res_ipis, 44006 + 35685);
	assert_int_equal(s->cal_ipis, 61406 + 71668);
	/* per CPU: each column is what that CPU counted */
	assert_int_equal(s->row_ncpus[PR_NET_RX], 2);
	assert_int_equal(s->row_n[PR_NET_RX][1], 1059);
	assert_int_equal(s->row_n[PR_TIMER][0], 53256);
	assert_int_equal(s->row_n[PR_HRTIMER][1], 359);
	assert_int_equal(s->row_n[PR_LOC][0], 334099);
	assert_int_equal(s->row_n[PR_RES][1], 35685);
	assert_int_equal(s->row_n[PR_CAL][0], 61406);
	assert_int_equal(s->row_ncpus[PR_CAL], 2);

	err_clear(&err);
	expect_err(procstat_parse_softirqs(s, "  CPU0 CPU1\nNET_RX: 1\n", "sq", &err), &err,
		   "sq:2: NET_RX: expected 2 per-CPU counts, found 1");
	err_clear(&err);
	expect_err(procstat_parse_softirqs(s, "  CPU0\nNET_RX: 1 2\n", "sq", &err), &err,
		   "sq:2: NET_RX: more than 1");
	err_clear(&err);
	expect_err(procstat_parse_softirqs(s, "NET_RX: 1 2\n", "sq", &err), &err, "sq:1: expected a header");
	err_clear(&err);
	expect_err(procstat_parse_interrupts(s, "  CPU0\nRES: 1 Resched\n", "irq", &err), &err,
		   "irq: no 'CAL:' line");
	err_clear(&err);
	expect_err(procstat_parse_interrupts(s, "  CPU0\nRES: 1 R\nCAL: 2 F\n", "irq", &err), &err,
		   "irq: no 'LOC:' line");
	err_clear(&err);
	expect_err(procstat_parse_softirqs(s, "  CPU0 CPU1\nNET_RX: 1 2\nTIMER: 3 4\nHRTIMER: 5\n",
					   "sq", &err),
		   &err, "sq:4: HRTIMER: expected 2 per-CPU counts, found 1");
	free(s);
}

static void test_vmstat_ksoftirqd_time(void **state)
{
	(void)state;
	struct procstat_sys *s = xcalloc(1, sizeof(*s));
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(procstat_parse_vmstat(s, "pgalloc_dma 0\npgalloc_normal 17830425\npgfree 18862524\n",
					       "vm", &err),
			 TCPSIM_OK);
	assert_int_equal(s->pgalloc_normal, 17830425);
	assert_int_equal(s->pgfree, 18862524);
	err_clear(&err);
	expect_err(procstat_parse_vmstat(s, "pgalloc_normal 1\n", "vm", &err), &err, "no 'pgfree' line");
	err_clear(&err);
	expect_err(procstat_parse_vmstat(s, "pgalloc_normal 1\npgfree x\n", "vm", &err), &err,
		   "vm:2: pgfree: not a count");

	/* utime + stime are fields 14 and 15: 19 + 0 and 8 + 15 */
	static const char ks[] =
		"14 (ksoftirqd/0) S 2 0 0 0 -1 69238848 0 0 0 0 19 0 0 0 20 0 1 0 19 0\n"
		"22 (ksoftirqd/1) S 2 0 0 0 -1 69238848 0 0 0 0 8 15 0 0 20 0 1 0 19 0\n";
	err_clear(&err);
	assert_int_equal(procstat_parse_ksoftirqd(s, ks, "ks", &err), TCPSIM_OK);
	assert_int_equal(s->ksoftirqd_ticks, 42);
	assert_int_equal(s->have_ksoftirqd, 1);
	err_clear(&err);
	expect_err(procstat_parse_ksoftirqd(s, "14 ksoftirqd S 2\n", "ks", &err), &err, "ks:1:");

	err_clear(&err);
	assert_int_equal(procstat_parse_time(s, "2213.5 100\n", "t", &err), TCPSIM_OK);
	assert_true(s->mono_s == 2213.5 && s->clk_tck == 100);
	err_clear(&err);
	expect_err(procstat_parse_time(s, "2213.5\n", "t", &err), &err, "t:1:");
	free(s);
}

static void test_snmp_dev(void **state)
{
	(void)state;
	struct procstat_net n;
	struct tcpsim_err err;
	memset(&n, 0, sizeof(n));
	err_clear(&err);
	static const char snmp[] =
		"Ip: Forwarding DefaultTTL InReceives OutRequests\n"
		"Ip: 1 64 10 308841\n"
		"Tcp: RtoMin MaxConn OutSegs RetransSegs\n"
		"Tcp: 200 -1 5474345 923\n";
	assert_int_equal(procstat_parse_snmp(&n, snmp, "snmp", &err), TCPSIM_OK);
	assert_int_equal(n.ip_out_requests, 308841);
	assert_int_equal(n.tcp_out_segs, 5474345);
	assert_int_equal(n.tcp_retrans_segs, 923);
	err_clear(&err);
	assert_int_equal(procstat_parse_snmp(&n, "TcpExt: A TCPOrigDataSent\nTcpExt: 1 5364735\n", "ns", &err),
			 TCPSIM_OK);
	assert_int_equal(n.tcp_orig_data_sent, 5364735);
	err_clear(&err);
	expect_err(procstat_parse_snmp(&n, "Ip: A B\nIp: 1\n", "snmp", &err), &err,
		   "snmp:2: table 'Ip' has 2 names (line 1) but 1 values");
	err_clear(&err);
	expect_err(procstat_parse_snmp(&n, "Ip: A B\nTcp: 1 2\n", "snmp", &err), &err, "snmp:2: values of table");
	err_clear(&err);
	expect_err(procstat_parse_snmp(&n, "Ip: A OutRequests\nIp: 1 -2\n", "snmp", &err), &err,
		   "snmp:2: Ip OutRequests: '-2' is not a count");

	static const char dev[] =
		"Inter-|   Receive                                                |  Transmit\n"
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
		"    lo: 7710667102 308841 0 0 0 0 0 0 7710667102 308842 0 0 0 0 0 0\n"
		"  tsva: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
	err_clear(&err);
	assert_int_equal(procstat_parse_dev(&n, dev, "dev", &err), TCPSIM_OK);
	assert_int_equal(n.ndevs, 2);
	assert_int_equal(procstat_net_dev(&n, "lo")->rx_packets, 308841);
	assert_int_equal(procstat_net_dev(&n, "lo")->tx_packets, 308842);
	assert_int_equal(procstat_net_dev(&n, "tsva")->tx_packets, 10);
	assert_null(procstat_net_dev(&n, "eth0"));
	err_clear(&err);
	expect_err(procstat_parse_dev(&n, "a\nb\n  lo: 1 2 3\n", "dev", &err), &err,
		   "dev:3: lo: expected 16 counters, found 3");
}

#define CLOSE(x, want, rel) assert_true(fabs((x) - (want)) <= (rel) * fabs(want) + 1e-9)

/* The recorded pair against the independently computed figures. */
static void test_recorded_delta(void **state)
{
	(void)state;
	struct procstat_sys *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	struct procstat_net na, nb;
	struct procstat_sys_delta d;
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(procstat_load_sys(a, DATA "/lo-before", &err), TCPSIM_OK);
	assert_int_equal(procstat_load_sys(b, DATA "/lo-after", &err), TCPSIM_OK);
	assert_int_equal(procstat_load_net(&na, DATA "/lo-before", &err), TCPSIM_OK);
	assert_int_equal(procstat_load_net(&nb, DATA "/lo-after", &err), TCPSIM_OK);
	assert_int_equal(a->ncpus, 2);
	assert_int_equal(a->ctxt, 2338566);
	assert_int_equal(b->netrx_softirqs, 510857);
	assert_int_equal(b->res_ipis, 93839);
	assert_int_equal(b->cal_ipis, 223975);
	assert_int_equal(b->ksoftirqd_ticks, 47);
	assert_int_equal(nb.ip_out_requests, 231681);
	assert_int_equal(nb.tcp_out_segs, 231868);
	assert_int_equal(nb.tcp_orig_data_sent, 165241);
	assert_int_equal(procstat_net_dev(&nb, "lo")->tx_packets, 231866);

	assert_int_equal(procstat_sys_delta(a, b, &d, &err), TCPSIM_OK);
	CLOSE(d.secs, 3.0406654580001486, 1e-9);
	CLOSE(d.util_pct, 76.23400365630712, 1e-9);
	/* every field's ticks over the clock's 304.07: cpu0 253, cpu1 295 */
	CLOSE(d.cpu_counted_pct[0], 100.0 * 253 / 304.06654580001486, 1e-9);
	CLOSE(d.cpu_counted_pct[1], 100.0 * 295 / 304.06654580001486, 1e-9);
	CLOSE(d.cs_per_s, 16621.690448393132, 1e-9);
	CLOSE(d.intr_per_s, 8639.556163892436, 1e-9);
	CLOSE(d.netrx_per_s, 69006.60493509304, 1e-9);
	CLOSE(d.res_per_s, 950.1209652639988, 1e-9);
	CLOSE(d.cal_per_s, 7026.093562443776, 1e-9);
	CLOSE(d.pgalloc_per_s, 543023.2371192737, 1e-9);
	CLOSE(d.pgfree_per_s, 543033.1033805953, 1e-9);
	CLOSE(d.ksoftirqd_s, 0.01, 1e-9);
	/* per CPU (CPU 0 ran the sender, CPU 1 the receiver) */
	CLOSE(d.row_per_s[PR_NET_RX][0], 52318.48166046823, 1e-9);
	CLOSE(d.row_per_s[PR_NET_RX][1], 16688.123274624813, 1e-9);
	CLOSE(d.row_per_s[PR_TIMER][0], 150.62492284212925, 1e-9);
	CLOSE(d.row_per_s[PR_TIMER][1], 107.21337302736711, 1e-9);
	CLOSE(d.row_per_s[PR_HRTIMER][0], 89.45410264860078, 1e-9);
	CLOSE(d.row_per_s[PR_HRTIMER][1], 26.310030190764934, 1e-9);
	CLOSE(d.row_per_s[PR_LOC][0], 349.2656507824045, 1e-9);
	CLOSE(d.row_per_s[PR_LOC][1], 301.5787210616431, 1e-9);
	CLOSE(d.row_per_s[PR_RES][0], 61.49969557091303, 1e-9);
	CLOSE(d.row_per_s[PR_RES][1], 888.6212696930857, 1e-9);
	CLOSE(d.row_per_s[PR_CAL][0], 172.98844850427946, 1e-9);
	CLOSE(d.row_per_s[PR_CAL][1], 6853.105113939497, 1e-9);
	CLOSE(d.row_per_s[PR_NET_RX][0] + d.row_per_s[PR_NET_RX][1], d.netrx_per_s, 1e-12);
	/* TcpExt: the recorded pair's counters, before (all 0) and after */
	static const uint64_t tcpext_after[PROCSTAT_TCPEXT_N] = {47759, 32517, 33645, 607, 0, 41293, 0, 0, 3,
								  2,	 1,	0,     3,   0, 0, 1,	 0};
	for (int i = 0; i < PROCSTAT_TCPEXT_N; i++) {
		assert_int_equal(na.tcpext[i], 0);
		assert_int_equal(nb.tcpext[i], tcpext_after[i]);
		CLOSE(procstat_tcpext_per_s(&na, &nb, NULL, NULL, i, d.secs),
		      (double)tcpext_after[i] / 3.0406654580001486, 1e-9);
	}
	/* a second namespace adds its own; an absent counter is NAN */
	CLOSE(procstat_tcpext_per_s(&na, &nb, &na, &nb, 0, 2.0), 47759.0, 1e-12);
	struct procstat_net old = nb;
	old.tcpext[3] = UINT64_MAX;
	assert_true(isnan(procstat_tcpext_per_s(&na, &old, NULL, NULL, 3, 1.0)));
	assert_string_equal(procstat_tcpext_names[3], "TCPBacklogCoalesce");

	/* swapped: refused, as is a counter that went backwards */
	err_clear(&err);
	expect_err(procstat_sys_delta(b, a, &d, &err), &err, "is not later than the first");
	b->mono_s = a->mono_s + 10;
	b->ctxt = a->ctxt - 1;
	err_clear(&err);
	expect_err(procstat_sys_delta(a, b, &d, &err), &err, "ctxt went backwards");
	b->ctxt = a->ctxt;
	b->row_n[PR_LOC][1] = a->row_n[PR_LOC][1] - 1;
	err_clear(&err);
	expect_err(procstat_sys_delta(a, b, &d, &err), &err, "LOC of CPU 1 went backwards");
	free(a);
	free(b);
}

static void test_load_errors(void **state)
{
	(void)state;
	struct procstat_sys *s = xcalloc(1, sizeof(*s));
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(procstat_load_sys(s, DATA "/no-such-snapshot", &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "no-such-snapshot/time"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_vmstat_ksoftirqd_time),
		cmocka_unit_test(test_snmp_dev),
		cmocka_unit_test(test_recorded_delta),
		cmocka_unit_test(test_load_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
