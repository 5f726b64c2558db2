/*
 * live-row: one live run -- iperf3's --json output and /proc snapshots
 * taken just before and just after it (tools/procstat snap) -- becomes one
 * row of a repetitions file, the raw material tools/live-agg turns into
 * recorded runs (model/study/runs.h).
 *
 * What each figure is, and whose accounting it is:
 *   throughput_mbps        end.sum_received.bits_per_second / streams (iperf3,
 *                          over iperf3's own test interval)
 *   cpu_send_pct, cpu_recv_pct
 *                          the WHOLE MACHINE's busy share from /proc/stat
 *                          (user+nice+system+irq+softirq over all ticks of all
 *                          CPUs), as netperf -c/-C report it on loopback and as
 *                          tcpsim reports a one-host run; both sides share the
 *                          host, so the two are equal.  iperf3's own figures
 *                          (its process's getrusage time over wall time, in % of
 *                          one CPU; iperf's cpu_util()) are kept beside them as
 *                          iperf3_send_cpu_pct / iperf3_recv_cpu_pct.
 *   sd_*_us_per_kb         netperf's service demand from the figures above:
 *                          util/100 * CPUs * 1e6 / (bytes/s / 1024)
 *   netrx_softirqs_per_s, res_ipis_per_s, cal_ipis_per_s, cs_per_s,
 *   intr_per_s, pgalloc_per_s, pgfree_per_s
 *                          SYSTEM-WIDE /proc deltas over the snapshot interval
 *   segs_per_s, frames_per_s, acks_per_s, segs_per_frame, acks_per_frame
 *                          the test namespaces' own SNMP counters (only the
 *                          test's traffic): data segments = TCPOrigDataSent +
 *                          RetransSegs; pure ACKs = OutSegs - data segments;
 *                          frames (skbs handed to IP, GSO or not) = Ip
 *                          OutRequests - ACKs
 *
 *   send_cpu, recv_cpu     the CPUs the sender (iperf3 client) and the receiver
 *                          (server) were pinned to (--send-cpu, --recv-cpu)
 *   snd_cpu_*, rcv_cpu_*   per CPU, of the sender's and of the receiver's CPU:
 *                          busy share (/proc/stat cpuN), NET_RX, TIMER and HRTIMER
 *                          softirqs (/proc/softirqs), LOC timer interrupts and RES
 *                          and CAL IPIs received (/proc/interrupts), per second;
 *                          when both are pinned to one CPU the two are equal
 *   writes_per_s           the sender's writes: end.sum_sent.bytes / blksize over
 *                          end.sum_sent.seconds (iperf3 writes whole blocks)
 *   tcpext_<Name>_per_s    the test namespaces' TcpExt counters (procstat.h)
 *   pacing                 the mode asked for: "unpaced" (no algorithm but --cc
 *                          ever initialised the socket) or "paced" (bbr initialised
 *                          it first, iperf3 -C switched it)
 *   pace_kicks_per_s       expiries of the internal-pacing hrtimer (its callback
 *                          tcp_pace_kick) over the run (--pace-kicks COUNT, counted
 *                          by the caller), empty when not counted (--run-note says why)
 *   cc_sender_ss           the sender's algorithm as `ss -ti` showed it during the run
 *   run_note               free text from the caller (--run-note)
 *
 * Disturbance: other_cpu_pct = (busy CPU time of the machine - iperf3's two
 * processes' time - the ksoftirqd threads' time) / CPU capacity of the
 * interval.  A run whose other_cpu_pct exceeds --other-max, or whose steal
 * time (a virtual machine's CPUs taken by the hypervisor) exceeds
 * --steal-max, is written with status "disturbed" and exit status 3, so the
 * caller redoes it.  Kernel time in softirqs that ran while a CPU was idle
 * counts as "other" too: the thresholds must allow for that.  A virtual
 * machine's host can also slow a vCPU without the guest's steal counter
 * showing it (tools/cpuspeed.c has the episode of 2026-12-01): the caller
 * times a fixed loop on the run's CPUs before and after it and passes the
 * worst slowdown against the session's baseline as --host-slow (column
 * host_slow_pct); above --slow-max the run is disturbed too.
 *
 * snd_rwnd_limited_pct (the last; --rwnd-pct, empty when not measured): the
 * share of the sender's busy time the receiver's window stopped it, from the
 * bulk socket's tcp_info (tcp_chrono: tcpi_rwnd_limited over tcpi_busy_time)
 * as the caller read it late in the run -- the steady state the run was
 * in: near 100 a reader behind its data, near 0 one that keeps up.
 *
 * The file is rewritten whole (model/base/outfile.h: temporary file and rename,
 * or straight into a device or FIFO), with the header checked (libcsv); exit status: 0 row written (ok), 3 row written
 * (disturbed), 1 cannot write, 2 bad input or usage.
 */
#include <csv.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "jsonpath.h"
#include "outfile.h"
#include "procstat.h"
#include "util.h"

#include "toolopt.h"

#define PROG "live-row"

/* The columns of a repetitions file, in order. */
enum rep_col {
	RC_POINT, RC_SCENARIO, RC_OVERRIDES, RC_REP, RC_ATTEMPT, RC_STATUS, RC_STARTED,
	RC_ELAPSED_S, RC_IPERF3_S, RC_CC_SENDER, RC_CC_RECEIVER, RC_BLKSIZE, RC_QUIET_BUSY,
	RC_OTHER_CPU, RC_STEAL, RC_KSOFTIRQD_S, RC_IPERF3_SEND_CPU, RC_IPERF3_RECV_CPU,
	RC_RETRANS, RC_DEV_PACKETS, RC_CPU_UTIL_EACH,
	/* metric columns, named as metric_table[] names them */
	RC_THROUGHPUT, RC_THROUGHPUT_TOTAL, RC_CPU_SEND, RC_CPU_RECV, RC_SD_SEND, RC_SD_RECV,
	RC_NETRX, RC_RES, RC_CS, RC_INTR, RC_PGALLOC, RC_PGFREE, RC_SEGS, RC_FRAMES, RC_ACKS,
	RC_CAL, RC_SEGS_PER_FRAME, RC_ACKS_PER_FRAME,
	/* the run's roles, pacing and per-CPU figures (after the metrics: older
	 * readers find every column they know where it was) */
	RC_SEND_CPU, RC_RECV_CPU, RC_PACING, RC_CC_SS, RC_RUN_NOTE, RC_PACE_KICKS, RC_WRITES,
	RC_PERCPU,                                   /* PERCPU_N pairs: sender's, receiver's */
	RC_TCPEXT = RC_PERCPU + 2 * 7,               /* PROCSTAT_TCPEXT_N columns */
	RC_HOST_SLOW = RC_TCPEXT + PROCSTAT_TCPEXT_N, /* the canary (--host-slow) */
	RC_RWND,                                     /* --rwnd-pct */
	RC_N
};

/* The per-CPU figures, in column order; busy comes from /proc/stat, the rest
 * are rows of enum procstat_row. */
enum { PERCPU_N = 7 };
static const int percpu_row[PERCPU_N] = {-1, PR_NET_RX, PR_TIMER, PR_HRTIMER, PR_LOC, PR_RES, PR_CAL};
_Static_assert(RC_TCPEXT == RC_PERCPU + 2 * PERCPU_N, "two columns per per-CPU figure");

static const char *const rep_col_name[RC_N] = {
	"point", "scenario", "overrides", "rep", "attempt", "status", "started_utc",
	"elapsed_s", "iperf3_s", "cc_sender", "cc_receiver", "blksize_bytes", "quiet_busy_pct",
	"other_cpu_pct", "steal_pct", "ksoftirqd_cpu_s", "iperf3_send_cpu_pct",
	"iperf3_recv_cpu_pct", "retrans_per_s", "dev_packets_per_s", "cpu_util_each_pct",
	"throughput_mbps", "throughput_total_mbps", "cpu_send_pct", "cpu_recv_pct",
	"sd_send_us_per_kb", "sd_recv_us_per_kb", "netrx_softirqs_per_s", "res_ipis_per_s",
	"cs_per_s", "intr_per_s", "pgalloc_per_s", "pgfree_per_s", "segs_per_s",
	"frames_per_s", "acks_per_s", "cal_ipis_per_s", "segs_per_frame", "acks_per_frame",
	"send_cpu", "recv_cpu", "pacing", "cc_sender_ss", "run_note", "pace_kicks_per_s",
	"writes_per_s",
	"snd_cpu_busy_pct", "rcv_cpu_busy_pct", "snd_cpu_netrx_per_s", "rcv_cpu_netrx_per_s",
	"snd_cpu_timer_per_s", "rcv_cpu_timer_per_s", "snd_cpu_hrtimer_per_s",
	"rcv_cpu_hrtimer_per_s", "snd_cpu_loc_per_s", "rcv_cpu_loc_per_s", "snd_cpu_res_per_s",
	"rcv_cpu_res_per_s", "snd_cpu_cal_per_s", "rcv_cpu_cal_per_s",
	/* tcpext_<procstat_tcpext_names[i]>_per_s, checked in main() */
	"tcpext_TCPHPHits_per_s", "tcpext_TCPHPAcks_per_s", "tcpext_TCPPureAcks_per_s",
	"tcpext_TCPBacklogCoalesce_per_s", "tcpext_TCPBacklogDrop_per_s",
	"tcpext_TCPRcvCoalesce_per_s", "tcpext_DelayedACKs_per_s", "tcpext_TCPAutoCorking_per_s",
	"tcpext_TCPOFOQueue_per_s", "tcpext_TCPWantZeroWindowAdv_per_s",
	"tcpext_TCPToZeroWindowAdv_per_s", "tcpext_TCPSackRecovery_per_s", "tcpext_TCPSACKReorder_per_s",
	"tcpext_TCPDSACKRecv_per_s", "tcpext_TCPDSACKUndo_per_s", "tcpext_TCPHystartTrainDetect_per_s",
	"tcpext_TCPHystartDelayDetect_per_s",
	"host_slow_pct", "snd_rwnd_limited_pct",
};

static const char usage_text[] =
	"usage: " PROG " -o REPS.csv --json IPERF3.json --before DIR --after DIR\n"
	"       [--rx-before DIR --rx-after DIR] [--dev NAME] --point ID --scenario CFG\n"
	"       [--overrides 'sec.key=v;...'] [--rep N] [--attempt N] [--quiet-busy PCT]\n"
	"       [--cc NAME] [--other-max PCT] [--steal-max PCT] [--send-cpu N] [--recv-cpu N]\n"
	"       [--pacing unpaced|paced] [--pace-kicks COUNT] [--cc-ss NAME] [--run-note TEXT]\n"
	"       [--host-slow PCT] [--slow-max PCT] [--rwnd-pct PCT]\n"
	"  Appends one repetition row.  --before/--after: snapshots (procstat snap) taken in\n"
	"  the sender's namespace; --rx-*: --net-only snapshots of the receiver's namespace\n"
	"  when it is another one (veth); --dev: the sender's device, whose transmitted\n"
	"  packets become dev_packets_per_s.  --cc: the congestion control asked for; a run\n"
	"  that used another is refused.  --send-cpu/--recv-cpu (0, 1): the CPUs the two\n"
	"  were pinned to, whose figures become the snd_cpu_*/rcv_cpu_* columns.\n"
	"  --pace-kicks: pacing-timer (tcp_pace_kick) expiries over the run.  --host-slow: how much\n"
	"  slower than the session's baseline tools/bin/cpuspeed found the CPUs around the run, at\n"
	"  worst (column host_slow_pct); above --slow-max (40) the run is disturbed.  --rwnd-pct:\n"
	"  the share of the sender's busy time the receiver's window stopped it (tcp_info, column\n"
	"  snd_rwnd_limited_pct; '' when not measured).  Exit 3 = disturbed (row written, redo it).\n";

struct opts {
	const char *out, *json, *before, *after, *rx_before, *rx_after, *dev;
	const char *point, *scenario, *overrides, *cc;
	const char *pacing, *cc_ss, *run_note;
	long rep, attempt, send_cpu, recv_cpu;
	double pace_kicks;
	double quiet_busy, other_max, steal_max;
	double host_slow, slow_max;
	double rwnd_pct;
};

struct iperf3_result {
	double recv_bps, secs, host_cpu, remote_cpu;
	double sent_bytes, sent_secs;
	long long streams, blksize;
	char cc_snd[32], cc_rcv[32];
};

/* ------------------------------------------------------------ iperf3 */

static void copy_string(json_t *root, const char *path, char *dst, size_t n)
{
	json_t *j = jsonpath_get(root, path);
	snprintf(dst, n, "%s", json_is_string(j) ? json_string_value(j) : "");
}

/* The client's JSON of a forward (client sends) TCP test. */
static int read_iperf3(const char *path, struct iperf3_result *r, struct tcpsim_err *err)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line < 1)
			return err_set(err, TCPSIM_EUSAGE, "%s: %s", path, jerr.text);
		return err_set(err, TCPSIM_EUSAGE, "%s:%d:%d: invalid JSON: %s", path, jerr.line,
			       jerr.column, jerr.text);
	}
	int rc = TCPSIM_OK;
	json_t *e = json_is_object(root) ? json_object_get(root, "error") : NULL;
	json_t *proto = jsonpath_get(root, "start.test_start.protocol");
	json_t *rev = jsonpath_get(root, "start.test_start.reverse");
	json_t *streams = jsonpath_get(root, "start.test_start.num_streams");
	json_t *blk = jsonpath_get(root, "start.test_start.blksize");
	if (!json_is_object(root))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: not iperf3 JSON (the top level is not an object)",
			     path);
	else if (e)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: iperf3 reported an error: %s", path,
			     json_is_string(e) ? json_string_value(e) : "(not a string)");
	else if (!jsonpath_get(root, "start.connecting_to"))
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: not a client's output (no 'start.connecting_to'); give the "
			     "client's --json",
			     path);
	else if (!json_is_string(proto) || strcmp(json_string_value(proto), "TCP") != 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: field 'start.test_start.protocol' is not \"TCP\"",
			     path);
	else if (rev && (!json_is_integer(rev) || json_integer_value(rev) != 0))
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: a reverse (-R) test; live runs have the client send", path);
	else if (!json_is_integer(streams) || json_integer_value(streams) < 1)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: field 'start.test_start.num_streams' is not a positive integer", path);
	else if (!json_is_integer(blk) || json_integer_value(blk) < 1)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: field 'start.test_start.blksize' is not a positive integer", path);
	if (!rc)
		rc = jsonpath_number(root, path, "end.sum_received.bits_per_second", &r->recv_bps, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.sum_received.seconds", &r->secs, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.cpu_utilization_percent.host_total", &r->host_cpu,
				 err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.cpu_utilization_percent.remote_total",
				 &r->remote_cpu, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.sum_sent.bytes", &r->sent_bytes, err);
	if (!rc)
		rc = jsonpath_number(root, path, "end.sum_sent.seconds", &r->sent_secs, err);
	if (!rc && !(r->secs > 0))
		rc = err_set(err, TCPSIM_EUSAGE, "%s: field 'end.sum_received.seconds' is 0", path);
	if (!rc) {
		r->streams = json_integer_value(streams);
		r->blksize = json_integer_value(blk);
		copy_string(root, "end.sender_tcp_congestion", r->cc_snd, sizeof(r->cc_snd));
		copy_string(root, "end.receiver_tcp_congestion", r->cc_rcv, sizeof(r->cc_rcv));
	}
	json_decref(root);
	return rc;
}

/* ------------------------------------------------------------ the file */

struct csv_check {
	const char *path;
	long fields, rows, want;
	int bad_row;
	struct tcpsim_err *err;
	int header_ok;
	long line;
};

static void chk_field(void *s, size_t len, void *data)
{
	struct csv_check *c = data;
	if (c->rows == 0 && c->fields < RC_N &&
	    (len != strlen(rep_col_name[c->fields]) || memcmp(s, rep_col_name[c->fields], len) != 0))
		c->header_ok = 0;
	c->fields++;
}

static void chk_row(int ch, void *data)
{
	struct csv_check *c = data;
	(void)ch;
	if (c->fields != c->want && !c->bad_row)
		c->bad_row = (int)c->rows + 1;
	c->rows++;
	c->fields = 0;
}

/* Check an existing repetitions file: libcsv-strict, our header, RC_N fields a row. */
static int check_existing(const char *path, const char *text, size_t len, struct tcpsim_err *err)
{
	struct csv_parser p;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
		return err_set(err, TCPSIM_EIO, "cannot initialise libcsv");
	struct csv_check c = {.path = path, .want = RC_N, .err = err, .header_ok = 1};
	int rc = TCPSIM_OK;
	if (csv_parse(&p, text, len, chk_field, chk_row, &c) != len ||
	    csv_fini(&p, chk_field, chk_row, &c) != 0)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: malformed CSV: %s", path,
			     csv_strerror(csv_error(&p)));
	else if (c.rows == 0)
		rc = TCPSIM_OK;
	else if (!c.header_ok)
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s:1: not a repetitions file of this version (header differs); use a "
			     "new file",
			     path);
	else if (c.bad_row)
		rc = err_set(err, TCPSIM_EUSAGE, "%s: row %d has not %d fields", path, c.bad_row, RC_N);
	csv_free(&p);
	return rc;
}

static void put_field(FILE *f, const char *s, int last)
{
	csv_fwrite(f, s, strlen(s));
	fputc(last ? '\n' : ',', f);
}

static int append_row(const char *path, char cells[RC_N][512], struct tcpsim_err *err)
{
	struct tcpsim_err rerr;
	err_clear(&rerr);
	char *old = NULL;
	if (access(path, F_OK) == 0) {
		old = procstat_read_file(path, err);
		if (!old)
			return err->code;
		if (check_existing(path, old, strlen(old), err)) {
			free(old);
			return err->code;
		}
	}
	struct outfile o;
	int rc = outfile_open(&o, path, NULL, err);
	if (rc) {
		free(old);
		return rc;
	}
	FILE *f = o.f;
	if (old && *old) {
		fputs(old, f);
		if (old[strlen(old) - 1] != '\n')
			fputc('\n', f);
	} else {
		for (int i = 0; i < RC_N; i++)
			put_field(f, rep_col_name[i], i == RC_N - 1);
	}
	for (int i = 0; i < RC_N; i++)
		put_field(f, cells[i], i == RC_N - 1);
	free(old);
	return outfile_commit(&o, err);
}

/* ---------------------------------------------------------------- main */

static void fmt_num(char *dst, double v)
{
	if (isnan(v))
		dst[0] = '\0';
	else
		snprintf(dst, 512, "%.6g", v);
}

static int make_row(const struct opts *o, struct tcpsim_err *err, int *disturbed)
{
	struct iperf3_result ip = {0};
	struct procstat_sys *a = xmalloc(sizeof(*a)), *b = xmalloc(sizeof(*b));
	struct procstat_net na, nb, ra, rb;
	struct procstat_sys_delta d;
	char(*cell)[512] = xcalloc(RC_N, 512);
	int rc = read_iperf3(o->json, &ip, err);
	if (!rc)
		rc = procstat_load_sys(a, o->before, err);
	if (!rc)
		rc = procstat_load_sys(b, o->after, err);
	if (!rc)
		rc = procstat_sys_delta(a, b, &d, err);
	if (!rc)
		rc = procstat_load_net(&na, o->before, err);
	if (!rc)
		rc = procstat_load_net(&nb, o->after, err);
	int two_ns = o->rx_before != NULL;
	if (!rc && two_ns)
		rc = procstat_load_net(&ra, o->rx_before, err);
	if (!rc && two_ns)
		rc = procstat_load_net(&rb, o->rx_after, err);
	if (!rc && o->cc && (strcmp(ip.cc_snd, o->cc) != 0 || strcmp(ip.cc_rcv, o->cc) != 0))
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: congestion control '%s' was asked for, but the sender used '%s' and "
			     "the receiver '%s'",
			     o->json, o->cc, ip.cc_snd[0] ? ip.cc_snd : "(not reported)",
			     ip.cc_rcv[0] ? ip.cc_rcv : "(not reported)");
	if (!rc && (o->send_cpu >= d.ncpus || o->recv_cpu >= d.ncpus))
		rc = err_set(err, TCPSIM_EUSAGE, "%s/stat: %d CPUs, no CPU %ld", o->before, d.ncpus,
			     o->send_cpu >= d.ncpus ? o->send_cpu : o->recv_cpu);
	if (!rc && (d.secs + 0.5 < ip.secs || d.secs > ip.secs + 5))
		rc = err_set(err, TCPSIM_EUSAGE,
			     "the snapshots are %.3f s apart but iperf3 ran %.3f s: they do not "
			     "bracket this run",
			     d.secs, ip.secs);
	if (rc)
		goto out;

	/* namespace counters: the sender's namespace, plus the receiver's if apart */
	/* counters that went backwards: the snapshots are not of one namespace and one run */
#define BACK(x, y, f) ((y).f < (x).f)
	if (BACK(na, nb, ip_out_requests) || BACK(na, nb, tcp_out_segs) ||
	    BACK(na, nb, tcp_retrans_segs) || BACK(na, nb, tcp_orig_data_sent) ||
	    (two_ns && (BACK(ra, rb, ip_out_requests) || BACK(ra, rb, tcp_out_segs) ||
			BACK(ra, rb, tcp_retrans_segs) || BACK(ra, rb, tcp_orig_data_sent)))) {
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s -> %s: the namespace's TCP counters went backwards: the snapshots are "
			     "not of one namespace and one run",
			     BACK(na, nb, tcp_out_segs) ? o->before : o->rx_before,
			     BACK(na, nb, tcp_out_segs) ? o->after : o->rx_after);
		goto out;
	}
#undef BACK
#define NSD(f) ((double)(nb.f - na.f) + (two_ns ? (double)(rb.f - ra.f) : 0.0))
	double data_segs = NSD(tcp_orig_data_sent) + NSD(tcp_retrans_segs);
	double acks = NSD(tcp_out_segs) - data_segs;
	double frames = NSD(ip_out_requests) - acks;
	double retrans = NSD(tcp_retrans_segs);
#undef NSD
	double dev_pkts = NAN;
	if (o->dev) {
		const struct procstat_dev *x = procstat_net_dev(&na, o->dev), *y = procstat_net_dev(&nb, o->dev);
		if (!x || !y) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s/dev: no device '%s'", x ? o->after : o->before,
				     o->dev);
			goto out;
		}
		dev_pkts = (double)(y->tx_packets - x->tx_packets) / d.secs;
	}
	double iperf3_cpu_s = (ip.host_cpu + ip.remote_cpu) / 100.0 * ip.secs;
	double other_s = d.busy_s - iperf3_cpu_s - (isnan(d.ksoftirqd_s) ? 0 : d.ksoftirqd_s);
	double other_pct = d.cpu_s > 0 ? 100.0 * other_s / d.cpu_s : 0;
	double steal_pct = d.cpu_s > 0 ? 100.0 * d.steal_s / d.cpu_s : 0;
	*disturbed = other_pct > o->other_max || steal_pct > o->steal_max ||
		     (!isnan(o->host_slow) && o->host_slow > o->slow_max);

	double total_mbps = ip.recv_bps / 1e6, bytes_s = ip.recv_bps / 8;
	double sd = bytes_s > 0 ? d.util_pct / 100 * d.ncpus * 1e6 / (bytes_s / 1024) : NAN;

	snprintf(cell[RC_POINT], 512, "%s", o->point);
	snprintf(cell[RC_SCENARIO], 512, "%s", o->scenario);
	snprintf(cell[RC_OVERRIDES], 512, "%s", o->overrides ? o->overrides : "");
	snprintf(cell[RC_REP], 512, "%ld", o->rep);
	snprintf(cell[RC_ATTEMPT], 512, "%ld", o->attempt);
	snprintf(cell[RC_STATUS], 512, "%s", *disturbed ? "disturbed" : "ok");
	time_t now = time(NULL);
	struct tm tmv;
	gmtime_r(&now, &tmv);
	strftime(cell[RC_STARTED], 512, "%Y-%m-%dT%H:%M:%SZ", &tmv);
	fmt_num(cell[RC_ELAPSED_S], d.secs);
	fmt_num(cell[RC_IPERF3_S], ip.secs);
	snprintf(cell[RC_CC_SENDER], 512, "%s", ip.cc_snd);
	snprintf(cell[RC_CC_RECEIVER], 512, "%s", ip.cc_rcv);
	snprintf(cell[RC_BLKSIZE], 512, "%lld", ip.blksize);
	fmt_num(cell[RC_QUIET_BUSY], o->quiet_busy);
	fmt_num(cell[RC_OTHER_CPU], other_pct);
	fmt_num(cell[RC_STEAL], steal_pct);
	fmt_num(cell[RC_KSOFTIRQD_S], d.ksoftirqd_s);
	fmt_num(cell[RC_IPERF3_SEND_CPU], ip.host_cpu);
	fmt_num(cell[RC_IPERF3_RECV_CPU], ip.remote_cpu);
	fmt_num(cell[RC_RETRANS], retrans / d.secs);
	fmt_num(cell[RC_DEV_PACKETS], dev_pkts);
	for (int c = 0; c < d.ncpus; c++) {
		size_t l = strlen(cell[RC_CPU_UTIL_EACH]);
		snprintf(cell[RC_CPU_UTIL_EACH] + l, 512 - l, "%s%.4g", c ? ";" : "", d.cpu_util_pct[c]);
	}
	fmt_num(cell[RC_THROUGHPUT], total_mbps / (double)ip.streams);
	fmt_num(cell[RC_THROUGHPUT_TOTAL], total_mbps);
	fmt_num(cell[RC_CPU_SEND], d.util_pct);
	fmt_num(cell[RC_CPU_RECV], d.util_pct);
	fmt_num(cell[RC_SD_SEND], sd);
	fmt_num(cell[RC_SD_RECV], sd);
	fmt_num(cell[RC_NETRX], d.netrx_per_s);
	fmt_num(cell[RC_RES], d.res_per_s);
	fmt_num(cell[RC_CS], d.cs_per_s);
	fmt_num(cell[RC_INTR], d.intr_per_s);
	fmt_num(cell[RC_PGALLOC], d.pgalloc_per_s);
	fmt_num(cell[RC_PGFREE], d.pgfree_per_s);
	fmt_num(cell[RC_SEGS], data_segs / d.secs);
	fmt_num(cell[RC_FRAMES], frames / d.secs);
	fmt_num(cell[RC_ACKS], acks / d.secs);
	fmt_num(cell[RC_CAL], d.cal_per_s);
	fmt_num(cell[RC_SEGS_PER_FRAME], frames > 0 ? data_segs / frames : NAN);
	fmt_num(cell[RC_ACKS_PER_FRAME], frames > 0 ? acks / frames : NAN);
	snprintf(cell[RC_SEND_CPU], 512, "%ld", o->send_cpu);
	snprintf(cell[RC_RECV_CPU], 512, "%ld", o->recv_cpu);
	snprintf(cell[RC_PACING], 512, "%s", o->pacing ? o->pacing : "");
	snprintf(cell[RC_CC_SS], 512, "%s", o->cc_ss ? o->cc_ss : "");
	snprintf(cell[RC_RUN_NOTE], 512, "%s", o->run_note ? o->run_note : "");
	fmt_num(cell[RC_PACE_KICKS], o->pace_kicks / d.secs);
	fmt_num(cell[RC_WRITES], ip.sent_secs > 0 ? ip.sent_bytes / (double)ip.blksize / ip.sent_secs
						  : NAN);
	for (int k = 0; k < PERCPU_N; k++)
		for (int role = 0; role < 2; role++) {
			long cpu = role ? o->recv_cpu : o->send_cpu;
			double v = percpu_row[k] < 0 ? d.cpu_util_pct[cpu]
				   : cpu < d.ncpus   ? d.row_per_s[percpu_row[k]][cpu]
						     : NAN;
			fmt_num(cell[RC_PERCPU + 2 * k + role], v);
		}
	for (int i = 0; i < PROCSTAT_TCPEXT_N; i++)
		fmt_num(cell[RC_TCPEXT + i], procstat_tcpext_per_s(&na, &nb, two_ns ? &ra : NULL,
								   two_ns ? &rb : NULL, i, d.secs));
	fmt_num(cell[RC_HOST_SLOW], o->host_slow);
	fmt_num(cell[RC_RWND], o->rwnd_pct);
	if (acks < 0 || frames <= 0) {
		rc = err_set(err, TCPSIM_EUSAGE,
			     "%s: the namespace counters do not add up (ACKs %.0f, frames %.0f): were "
			     "the snapshots taken in the test's namespaces?",
			     o->before, acks, frames);
		goto out;
	}
	rc = append_row(o->out, cell, err);
	if (!rc)
		printf("%s other_cpu=%.1f%% steal=%.1f%% host_slow=%s throughput=%.0f Mbit/s util=%.1f%%\n",
		       *disturbed ? "disturbed" : "ok", other_pct, steal_pct, cell[RC_HOST_SLOW][0] ?
		       cell[RC_HOST_SLOW] : "-", total_mbps, d.util_pct);
out:
	free(a);
	free(b);
	free(cell);
	return rc;
}

static int usage(const char *msg)
{
	return tool_usage(PROG, usage_text, msg);
}

static int parse_num(const char *s, double *out)
{
	return parse_finite(s, out) && *out >= 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"output", required_argument, NULL, 'o'}, {"json", required_argument, NULL, 'j'},
		{"before", required_argument, NULL, 'b'}, {"after", required_argument, NULL, 'a'},
		{"rx-before", required_argument, NULL, 'B'}, {"rx-after", required_argument, NULL, 'A'},
		{"dev", required_argument, NULL, 'd'}, {"point", required_argument, NULL, 'p'},
		{"scenario", required_argument, NULL, 's'}, {"overrides", required_argument, NULL, 'v'},
		{"rep", required_argument, NULL, 'r'}, {"attempt", required_argument, NULL, 't'},
		{"quiet-busy", required_argument, NULL, 'q'}, {"cc", required_argument, NULL, 'c'},
		{"other-max", required_argument, NULL, 'O'}, {"steal-max", required_argument, NULL, 'S'},
		{"send-cpu", required_argument, NULL, 'C'}, {"recv-cpu", required_argument, NULL, 'R'},
		{"pacing", required_argument, NULL, 'P'}, {"pace-kicks", required_argument, NULL, 'K'},
		{"cc-ss", required_argument, NULL, 'X'}, {"run-note", required_argument, NULL, 'N'},
		{"host-slow", required_argument, NULL, 'H'}, {"slow-max", required_argument, NULL, 'M'},
		{"rwnd-pct", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	struct opts o = {.rep = 1, .attempt = 1, .quiet_busy = NAN, .other_max = 5, .steal_max = 2,
			 .send_cpu = 0, .recv_cpu = 1, .pace_kicks = NAN, .host_slow = NAN, .slow_max = 40,
			 .rwnd_pct = NAN};
	for (int i = 0; i < PROCSTAT_TCPEXT_N; i++) {
		char want[96];
		snprintf(want, sizeof(want), "tcpext_%s_per_s", procstat_tcpext_names[i]);
		INVARIANT(strcmp(want, rep_col_name[RC_TCPEXT + i]) == 0, "column %s is not %s",
			  rep_col_name[RC_TCPEXT + i], want);
	}
	int c;
	double x;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out = optarg; break;
		case 'j': o.json = optarg; break;
		case 'b': o.before = optarg; break;
		case 'a': o.after = optarg; break;
		case 'B': o.rx_before = optarg; break;
		case 'A': o.rx_after = optarg; break;
		case 'd': o.dev = optarg; break;
		case 'p': o.point = optarg; break;
		case 's': o.scenario = optarg; break;
		case 'v': o.overrides = optarg; break;
		case 'c': o.cc = optarg; break;
		case 'X': o.cc_ss = optarg; break;
		case 'N': o.run_note = optarg; break;
		case 'P':
			if (strcmp(optarg, "unpaced") != 0 && strcmp(optarg, "paced") != 0)
				return usage("--pacing takes unpaced or paced");
			o.pacing = optarg;
			break;
		case 'K':
			if (*optarg && (!parse_num(optarg, &x) || x != floor(x)))
				return usage("--pace-kicks takes a count (or '' when not measured)");
			o.pace_kicks = *optarg ? x : NAN;
			break;
		case 'C':
		case 'R':
			if (!parse_num(optarg, &x) || x != floor(x) || x >= PROCSTAT_MAX_CPUS)
				return usage("--send-cpu and --recv-cpu take a CPU number");
			*(c == 'C' ? &o.send_cpu : &o.recv_cpu) = (long)x;
			break;
		case 'r':
		case 't':
			if (!parse_num(optarg, &x) || x < 1 || x != floor(x))
				return usage(c == 'r' ? "--rep takes a positive integer"
						      : "--attempt takes a positive integer");
			*(c == 'r' ? &o.rep : &o.attempt) = (long)x;
			break;
		case 'q':
		case 'O':
		case 'S':
			if (!parse_num(optarg, &x) || x > 100)
				return usage("--quiet-busy, --other-max and --steal-max take a percentage");
			*(c == 'q' ? &o.quiet_busy : c == 'O' ? &o.other_max : &o.steal_max) = x;
			break;
		case 'H':
			/* a CPU may also run faster than the baseline: negative is fine */
			if (*optarg && (!parse_finite(optarg, &x) || x < -100))
				return usage("--host-slow takes a percentage (or '' when not measured)");
			o.host_slow = *optarg ? x : NAN;
			break;
		case 'M':
			if (!parse_num(optarg, &x))
				return usage("--slow-max takes a percentage");
			o.slow_max = x;
			break;
		case 'W':
			if (*optarg && (!parse_num(optarg, &x) || x > 100))
				return usage("--rwnd-pct takes a percentage (or '' when not measured)");
			o.rwnd_pct = *optarg ? x : NAN;
			break;
		case 'h': fputs(usage_text, stdout); return 0;
		default:
			return tool_bad_option(PROG, usage_text, argv);
		}
	}
	if (optind != argc)
		return usage("unexpected argument");
	if (!o.out || !o.json || !o.before || !o.after || !o.point || !o.scenario)
		return usage("-o, --json, --before, --after, --point and --scenario are required");
	if (!o.rx_before != !o.rx_after)
		return usage("--rx-before and --rx-after go together");
	struct tcpsim_err err;
	err_clear(&err);
	int disturbed = 0;
	int rc = outfile_check_inputs(o.out, &o.json, 1, &err);
	if (!rc)
		rc = make_row(&o, &err, &disturbed);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return rc == TCPSIM_EUSAGE ? 2 : 1;
	}
	return disturbed ? 3 : 0;
}
