/*
 * test_report: the metric table and the report formats against their
 * contract.  CSV is re-read with libcsv and JSON with jansson (the oracle
 * is the struct metrics that was written); the netperf row is checked
 * against a row of the recorded FreeBSD report; compare's % change against
 * hand arithmetic on the LKP loopback report's numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <csv.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "csvread.h"
#include "report.h"

/* ---- helpers --------------------------------------------------------- */

/* Run a report function into a string (caller frees). */
#define CAPTURE(buf, call)                                                     \
	do {                                                                   \
		size_t len_;                                                   \
		FILE *f = open_memstream(&(buf), &len_);                       \
		assert_non_null(f);                                            \
		assert_int_equal((call), 0);                                   \
		assert_int_equal(fclose(f), 0);                                \
	} while (0)

static void fill_scenario(struct scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->lkp_seconds = 300;
	sc->instances = 8;
	sc->link_type = LINK_LOOPBACK;
	sc->mtu_bytes = 65536;
	sc->test = APP_TCP_SENDFILE;
	sc->send_size = 10240;
	sc->recv_size = 87380;
	sc->host[0].cpus = 4;
	sc->host[0].ghz = 1.66;
	snprintf(sc->host[0].name, sizeof(sc->host[0].name), "atom");
	snprintf(sc->host[0].kernel, sizeof(sc->host[0].kernel), "3.6");
}

/* Values that need all of %.6g's digits, plus one not-finite ratio. */
static void fill_metrics(struct metrics *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < METRIC_N; i++)
		m->v[i] = 1234.56789 * (i + 1) + 1.0 / 3.0;
	m->v[METRIC_ACKS_PER_FRAME] = NAN;
	m->mss_bytes = 65483;
	m->size_goal_bytes = 65483;
	m->sndbuf_bytes = 393216;
	m->rcvbuf_bytes = 87380;
	m->cwnd_segs = 47;
	m->ssthresh_segs = 32;
	m->measured_s = 10;
	m->warmup_s = 1;
	m->early_stop = 1;
	m->batches = 12;
	m->tput_ci_pct = 0.75;
	m->events = 123456789012ULL;
	m->host_ctx_pct[0][1] = 30;
	m->host_ctx_pct[0][2] = 60;
	m->host_cat_pct[0][COST_COPY_BYTE] = 25;
	m->host_cat_pct[0][COST_RX_FRAME] = 12.5;
	for (int c = 0; c < 4; c++)
		m->cpu_busy_pct[0][c] = 90 + c;
	snprintf(m->bottleneck_text, sizeof(m->bottleneck_text), "cpu: sender cpu 0 at 100%% busy");
	m->buffers_settled = 1;
}

/* ---- metric table ----------------------------------------------------- */

static void test_metric_table_contract(void **state)
{
	static const char *const contract[METRIC_CONTRACT_N] = {
		"throughput_mbps", "throughput_total_mbps", "cpu_send_pct", "cpu_recv_pct",
		"sd_send_us_per_kb", "sd_recv_us_per_kb", "netrx_softirqs_per_s",
		"res_ipis_per_s", "cs_per_s", "intr_per_s", "pgalloc_per_s", "pgfree_per_s",
		"segs_per_s", "frames_per_s", "acks_per_s",
	};
	(void)state;
	assert_int_equal(METRIC_CONTRACT_N, 15);
	for (int i = 0; i < METRIC_CONTRACT_N; i++)
		assert_string_equal(metric_table[i].name, contract[i]);
	for (int i = 0; i < METRIC_N; i++) {
		const struct metric_desc *d = &metric_table[i];
		assert_non_null(d->name);
		assert_non_null(d->unit);
		assert_non_null(d->help);
		/* a total is an LKP notion, and its rate unit must end in "/s" */
		if (d->lkp_total) {
			assert_non_null(d->lkp_name);
			assert_string_equal(d->unit + strlen(d->unit) - 2, "/s");
		}
		for (int j = 0; j < i; j++)
			assert_string_not_equal(metric_table[j].name, d->name);
	}
	assert_string_equal(metric_table[METRIC_THROUGHPUT_MBPS].lkp_name, "netperf.Throughput_Mbps");
	assert_int_equal(metric_table[METRIC_THROUGHPUT_MBPS].lkp_total, 0);
	assert_string_equal(metric_table[METRIC_NETRX_SOFTIRQS_PER_S].lkp_name, "softirqs.NET_RX");
	assert_int_equal(metric_table[METRIC_NETRX_SOFTIRQS_PER_S].lkp_total, 1);
	assert_string_equal(metric_table[METRIC_CS_PER_S].lkp_name, "vmstat.system.cs");
	assert_int_equal(metric_table[METRIC_CS_PER_S].lkp_total, 0);
	assert_string_equal(metric_table[METRIC_PGALLOC_PER_S].lkp_name, "proc-vmstat.pgalloc_normal");
	assert_int_equal(metric_table[METRIC_PGALLOC_PER_S].lkp_total, 1);
	assert_string_equal(metric_table[METRIC_CAL_IPIS_PER_S].lkp_name, "interrupts.CAL");
}

static void test_metric_find(void **state)
{
	(void)state;
	for (int i = 0; i < METRIC_N; i++)
		assert_int_equal(metric_find(metric_table[i].name), i);
	assert_int_equal(metric_find("acks_per_frame"), METRIC_ACKS_PER_FRAME);
	assert_int_equal(metric_find("throughput"), -1);
	assert_int_equal(metric_find("netperf.Throughput_Mbps"), -1); /* columns only */
	assert_int_equal(metric_find(""), -1);
	assert_int_equal(metric_find(NULL), -1);
}

/* ---- CSV ---------------------------------------------------------------- */

struct csv_rows {
	char cell[4][192][64]; /* rows, columns (METRIC_N + extras), bytes */
	int ncols[4];
	int row;
};

static void on_field(void *s, size_t len, void *data)
{
	struct csv_rows *r = data;
	int c = r->ncols[r->row]++;
	assert_true(r->row < 4 && c < 192 && len < 64);
	memcpy(r->cell[r->row][c], s ? s : "", len);
	r->cell[r->row][c][len] = '\0';
}

static void on_row(int ch, void *data)
{
	struct csv_rows *r = data;
	(void)ch;
	r->row++;
}

static void parse_csv(const char *text, struct csv_rows *r)
{
	struct csv_parser p;
	memset(r, 0, sizeof(*r));
	assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
	assert_int_equal(csv_parse(&p, text, strlen(text), on_field, on_row, r), strlen(text));
	assert_int_equal(csv_fini(&p, on_field, on_row, r), 0);
	csv_free(&p);
}

static void test_csv_header_and_row(void **state)
{
	struct scenario sc;
	struct metrics m;
	struct csv_rows r;
	char *text = NULL;
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&m);
	CAPTURE(text, report_csv(f, &sc, &m));
	parse_csv(text, &r);
	assert_int_equal(r.row, 2);
	assert_int_equal(r.ncols[0], METRIC_N);
	assert_int_equal(r.ncols[1], METRIC_N);
	for (int i = 0; i < METRIC_N; i++) {
		assert_string_equal(r.cell[0][i], metric_table[i].name);
		if (!isfinite(m.v[i])) {
			assert_string_equal(r.cell[1][i], ""); /* "not measured" */
			continue;
		}
		double back = strtod(r.cell[1][i], NULL);
		/* %.6g: six significant digits */
		assert_true(fabs(back - m.v[i]) <= 5e-6 * fabs(m.v[i]));
		char want[32];
		snprintf(want, sizeof(want), "%.6g", m.v[i]);
		assert_string_equal(r.cell[1][i], want);
	}
	free(text);
}

static void test_csv_extra_columns(void **state)
{
	static const char *const cols[] = {"axis, \"quoted\"", "mtu"};
	static const char *const vals[] = {"link.mtu_bytes", "16436"};
	struct metrics m;
	struct csv_rows r;
	char *text = NULL;
	size_t len;
	FILE *f;
	(void)state;

	fill_metrics(&m);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(report_csv_header(f, cols, 2), 0);
	assert_int_equal(report_csv_row(f, vals, 2, &m), 0);
	assert_int_equal(report_csv_row(f, vals, 2, &m), 0);
	fclose(f);
	parse_csv(text, &r);
	assert_int_equal(r.row, 3);
	for (int row = 0; row < 3; row++)
		assert_int_equal(r.ncols[row], METRIC_N + 2);
	assert_string_equal(r.cell[0][0], "axis, \"quoted\""); /* libcsv quoting round-trips */
	assert_string_equal(r.cell[0][1], "mtu");
	assert_string_equal(r.cell[0][2], "throughput_mbps");
	assert_string_equal(r.cell[2][1], "16436");
	assert_string_equal(r.cell[0][METRIC_N + 1], metric_table[METRIC_N - 1].name);
	assert_string_equal(r.cell[0][METRIC_ACKS_PER_FRAME + 2], "acks_per_frame");
	free(text);
}

/* ---- charge log (run --charges) --------------------------------------- */

struct cl_read {
	char cell[4][7][24];
	int rows;
};

static int cl_record(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct cl_read *r = ctx;
	(void)err;
	assert_int_equal(rec->n, 7);
	assert_true(r->rows < 4);
	for (int i = 0; i < rec->n; i++)
		snprintf(r->cell[r->rows][i], sizeof(r->cell[0][0]), "%s", rec->field[i]);
	r->rows++;
	return TCPSIM_OK;
}

/* report_chargelog's CSV read back by csvread: the header, a row per
 * step, context and cost, times in us to the ns, names for the context
 * and the cost, whole cycles */
static void test_chargelog_round_trip(void **state)
{
	struct charge_row rows[3] = {
		{.t = 300002899, .step_ns = 15804, .cycles = 4478.34, .host = 0, .cpu = 0, .ctx = 2, .cost = COST_SYSCALL},
		{.t = 300002899, .step_ns = 15804, .cycles = 5367, .host = 0, .cpu = 0, .ctx = 1, .cost = COST_WAKEUP},
		{.t = 300010299, .step_ns = 859, .cycles = 1800, .host = 1, .cpu = 3, .ctx = 0, .cost = COST_IPI_RECV},
	};
	struct chargelog cl = {.rows = rows, .n = 3};
	struct cl_read r = {0};
	struct tcpsim_err err = {0};
	char path[] = "/tmp/test_report_cl_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	(void)state;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(report_chargelog(f, &cl), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(csvread_file(path, "charges", cl_record, &r, &err), TCPSIM_OK);
	unlink(path);
	assert_int_equal(r.rows, 4);
	assert_string_equal(r.cell[0][0], "t_us");
	assert_string_equal(r.cell[0][4], "cost");
	assert_string_equal(r.cell[0][6], "step_us");
	assert_string_equal(r.cell[1][0], "300002.899");
	assert_string_equal(r.cell[1][3], "process");
	assert_string_equal(r.cell[1][4], "syscall");
	assert_string_equal(r.cell[1][5], "4478");
	assert_string_equal(r.cell[1][6], "15.804");
	assert_string_equal(r.cell[2][3], "softirq");
	assert_string_equal(r.cell[2][4], "wakeup");
	assert_string_equal(r.cell[3][1], "1");
	assert_string_equal(r.cell[3][2], "3");
	assert_string_equal(r.cell[3][3], "hardirq");
	assert_string_equal(r.cell[3][4], "ipi_recv");
	assert_string_equal(r.cell[3][6], "0.859");
}

/* ---- timeline (run --timeline) ---------------------------------------- */

struct tl_read {
	char cell[8][16][24];
	int rows;
};

static int tl_record(void *ctx, struct csvread_rec *rec, struct tcpsim_err *err)
{
	struct tl_read *r = ctx;
	(void)err;
	assert_int_equal(rec->n, 16);
	assert_true(r->rows < 8);
	for (int i = 0; i < rec->n; i++)
		snprintf(r->cell[r->rows][i], sizeof(r->cell[0][0]), "%s", rec->field[i]);
	r->rows++;
	return TCPSIM_OK;
}

/* report_timeline's CSV read back by the library's own reader (csvread):
 * the header, the counts per step, the values carried from the last step
 * that saw one, empty cells before any, whole numbers exactly */
static void test_timeline_round_trip(void **state)
{
	struct timeline_step steps[3] = {{0}};
	struct timeline tl = {.step_ns = 250000, .nsteps = 3, .t0 = 0, .steps = steps};
	struct tl_read r = {0};
	struct tcpsim_err err = {0};
	char path[] = "/tmp/test_report_tl_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	(void)state;

	assert_true(fd >= 0);
	steps[0] = (struct timeline_step){.segs = 3, .bytes = 3 * 1448, .rcv = true, .rcv_wnd = 65160};
	steps[1] = (struct timeline_step){.acks = 2, .snd = true, .cwnd = 20.7, .ssthresh = TIMELINE_INFINITE_SSTHRESH,
					  .srtt_us = 31, .snd_wnd = 1234567, .grow = true, .rcvbuf = 33554432,
					  .writes = 7, .reads = 6, .sleeps = 5, .wakes = 4, .ipis = 3, .no_ipi = 1};
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(report_timeline(f, &tl), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(csvread_file(path, "timeline", tl_record, &r, &err), TCPSIM_OK);
	unlink(path);
	assert_int_equal(r.rows, 4);
	assert_string_equal(r.cell[0][0], "t_ms");
	assert_string_equal(r.cell[0][9], "rcvbuf");
	assert_string_equal(r.cell[0][10], "writes");
	assert_string_equal(r.cell[0][15], "no_ipi");
	/* step 1: data only -- the sender's and the buffer's cells empty */
	assert_string_equal(r.cell[1][0], "0.250");
	assert_string_equal(r.cell[1][1], "3");
	assert_string_equal(r.cell[1][2], "4.2");
	assert_string_equal(r.cell[1][4], "");
	assert_string_equal(r.cell[1][8], "65160");
	assert_string_equal(r.cell[1][9], "");
	/* step 2: an ACK (cwnd in whole segments) and a growth */
	assert_string_equal(r.cell[2][3], "2");
	assert_string_equal(r.cell[2][4], "20");
	assert_string_equal(r.cell[2][5], "2147483647");
	assert_string_equal(r.cell[2][7], "1234567");
	assert_string_equal(r.cell[2][8], "65160");
	assert_string_equal(r.cell[2][9], "33554432");
	/* and the calls, the reader's sleeps and wakeups, its CPU's IPIs:
	 * counts of the step alone */
	assert_string_equal(r.cell[2][10], "7");
	assert_string_equal(r.cell[2][11], "6");
	assert_string_equal(r.cell[2][12], "5");
	assert_string_equal(r.cell[2][13], "4");
	assert_string_equal(r.cell[2][14], "3");
	assert_string_equal(r.cell[2][15], "1");
	assert_string_equal(r.cell[1][10], "0");
	/* step 3: nothing new -- counts 0, the last values carried */
	assert_string_equal(r.cell[3][0], "0.750");
	assert_string_equal(r.cell[3][1], "0");
	assert_string_equal(r.cell[3][6], "31");
	assert_string_equal(r.cell[3][9], "33554432");
}

/* ---- JSON ------------------------------------------------------------- */

static void test_json_round_trip(void **state)
{
	struct scenario sc;
	struct metrics m;
	json_error_t jerr;
	char *text = NULL;
	json_t *o, *cpu, *h0;
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&m);
	CAPTURE(text, report_json(f, &sc, &m));
	o = json_loads(text, 0, &jerr);
	if (!o)
		fail_msg("JSON does not parse: line %d: %s", jerr.line, jerr.text);
	assert_true(json_is_object(o));
	for (int i = 0; i < METRIC_N; i++) {
		json_t *v = json_object_get(o, metric_table[i].name);
		assert_non_null(v);
		if (!isfinite(m.v[i]))
			assert_true(json_is_null(v));
		else
			assert_true(json_number_value(v) == m.v[i]); /* 17 digits: exact */
	}
	assert_int_equal(json_integer_value(json_object_get(o, "mss_bytes")), 65483);
	assert_int_equal(json_integer_value(json_object_get(o, "size_goal_bytes")), 65483);
	assert_int_equal(json_integer_value(json_object_get(o, "sndbuf_bytes")), 393216);
	assert_int_equal(json_integer_value(json_object_get(o, "rcvbuf_bytes")), 87380);
	assert_int_equal(json_integer_value(json_object_get(o, "cwnd_segs")), 47);
	assert_int_equal(json_integer_value(json_object_get(o, "ssthresh_segs")), 32);
	assert_true(json_number_value(json_object_get(o, "measured_s")) == 10.0);
	assert_true(json_number_value(json_object_get(o, "warmup_s")) == 1.0);
	assert_true(json_is_true(json_object_get(o, "early_stop")));
	assert_int_equal(json_integer_value(json_object_get(o, "batches")), 12);
	assert_true(json_number_value(json_object_get(o, "tput_ci_pct")) == 0.75);
	assert_true(json_integer_value(json_object_get(o, "events")) == 123456789012LL);
	assert_string_equal(json_string_value(json_object_get(o, "bottleneck")), m.bottleneck_text);
	cpu = json_object_get(o, "cpu");
	assert_true(json_is_array(cpu));
	assert_int_equal(json_array_size(cpu), 1); /* loopback: one host */
	h0 = json_array_get(cpu, 0);
	assert_true(json_number_value(json_object_get(json_object_get(h0, "context_pct"), "softirq")) == 30);
	assert_true(json_number_value(json_object_get(json_object_get(h0, "category_pct"), "copy_byte")) == 25);
	assert_int_equal(json_array_size(json_object_get(h0, "cpu_busy_pct")), 4);
	json_decref(o);
	free(text);
	m.ssthresh_segs = 0; /* still in slow start: null, as ss -ti prints none */
	CAPTURE(text, report_json(f, &sc, &m));
	o = json_loads(text, 0, &jerr);
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(o, "ssthresh_segs")));
	assert_int_equal(json_integer_value(json_object_get(o, "cwnd_segs")), 47);
	json_decref(o);
	free(text);
}

/* ---- table -------------------------------------------------------------- */

/* The "Without patch" row of freebsd-sendfile-tso-myri10ge.txt, byte for byte. */
static void test_table_netperf_row(void **state)
{
	struct scenario sc;
	struct metrics m;
	char *text = NULL;
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&m);
	sc.send_size = 393216;
	m.rcvbuf_bytes = 87380;
	m.sndbuf_bytes = 393216;
	m.measured_s = 10.0;
	m.v[METRIC_THROUGHPUT_MBPS] = 2163.08;
	m.v[METRIC_CPU_SEND_PCT] = 100.0;
	m.v[METRIC_CPU_RECV_PCT] = 19.35;
	m.v[METRIC_SD_SEND_US_PER_KB] = 3.787;
	m.v[METRIC_SD_RECV_US_PER_KB] = 1.466;
	CAPTURE(text, report_table(f, &sc, &m));
	assert_non_null(strstr(text,
		"Recv   Send    Send                          Utilization       Service Demand\n"
		"Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n"
		"Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
		"bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB\n"));
	if (!strstr(text, "\n 87380 393216 393216    10.00      2163.08   100.00   19.35    3.787   1.466 \n"))
		fail_msg("netperf row not in the recorded layout:\n%s", text);
	/* LKP totals over lkp_seconds, per-second means as they are */
	char want[128];
	snprintf(want, sizeof(want), "  %-28s %14.0f  softirqs per 300 s run",
		 "softirqs.NET_RX", m.v[METRIC_NETRX_SOFTIRQS_PER_S] * 300);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "  %-28s %14.1f  switches/s", "vmstat.system.cs", m.v[METRIC_CS_PER_S]);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "top costs: copy_byte 25.0%, rx_frame 12.5%\n"));
	assert_non_null(strstr(text, "Bottleneck: cpu: sender cpu 0 at 100% busy\n"));
	assert_non_null(strstr(text, "early stop yes"));
	assert_null(strstr(text, "nan"));
	assert_non_null(strstr(text, "  cwnd                                     47  segments (sender, end of run; ssthresh 32)\n"));
	free(text);
}

/* ---- compare ------------------------------------------------------------ */

static void test_change_pct(void **state)
{
	char buf[16];
	double pct = -1;
	(void)state;

	/* lkp-loopback-mtu64k.txt: 1233 -> 1805 is +46.4%, 29214 -> 4310 is -85.2% */
	assert_int_equal(report_change_pct(1233, 1805, &pct), 1);
	assert_true(fabs(pct - (1805.0 - 1233.0) / 1233.0 * 100) < 1e-12);
	report_change_str(1233, 1805, buf, sizeof(buf));
	assert_string_equal(buf, "+46.4%");
	report_change_str(29214, 4310, buf, sizeof(buf));
	assert_string_equal(buf, "-85.2%");
	report_change_str(10, 9, buf, sizeof(buf));
	assert_string_equal(buf, "-10.0%");
	report_change_str(1000, 1000.1, buf, sizeof(buf));
	assert_string_equal(buf, "0.0%");
	/* undefined: a dash, and *pct untouched */
	pct = 7;
	assert_int_equal(report_change_pct(0, 5, &pct), 0);
	assert_true(pct == 7);
	report_change_str(0, 5, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	report_change_str(0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	report_change_str(NAN, 5, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	/* a negative base: the sign follows the direction of change */
	report_change_str(-2, -1, buf, sizeof(buf));
	assert_string_equal(buf, "+50.0%");
}

/* The line compare prints for one row name. */
static const char *line_of(const char *text, const char *name, char *line, size_t n)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "   %s\n", name);
	const char *end = strstr(text, pat);
	if (!end)
		fail_msg("no row %s in:\n%s", name, text);
	const char *start = end;
	while (start > text && start[-1] != '\n')
		start--;
	snprintf(line, n, "%.*s", (int)(end - start + strlen(pat) - 1), start);
	return line;
}

static void test_compare_layout(void **state)
{
	struct scenario sc;
	struct metrics a, b;
	char *text = NULL, line[256], want[256];
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&a);
	fill_metrics(&b);
	a.v[METRIC_THROUGHPUT_MBPS] = 1233;
	b.v[METRIC_THROUGHPUT_MBPS] = 1805;
	a.v[METRIC_RES_IPIS_PER_S] = 29214.0 / 300; /* LKP total over 300 s */
	b.v[METRIC_RES_IPIS_PER_S] = 4310.0 / 300;
	a.v[METRIC_GRO_MERGES_PER_S] = 0;
	b.v[METRIC_GRO_MERGES_PER_S] = 12;
	a.mss_bytes = 16384;

	struct report_side base = {"2a6c8c7998f95b1", &sc, &a, 1};
	struct report_side nw = {"0cf833aefaa85bbfce3ff7048", &sc, &b, 1};
	CAPTURE(text, report_compare(f, &base, &nw));
	assert_true(strncmp(text, "2a6c8c7998f95b1  0cf833aefaa85bbfce3ff7048\n"
				  "---------------  -------------------------\n", 86) == 0);
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "1233", "+46.4%", "1805", "netperf.Throughput_Mbps");
	assert_string_equal(line_of(text, "netperf.Throughput_Mbps", line, sizeof(line)), want);
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "29214", "-85.2%", "4310", "interrupts.RES");
	assert_string_equal(line_of(text, "interrupts.RES", line, sizeof(line)), want);
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "0", "-", "12", "gro_merges_per_s");
	assert_string_equal(line_of(text, "gro_merges_per_s", line, sizeof(line)), want);
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "-", "-", "-", "acks_per_frame");
	assert_string_equal(line_of(text, "acks_per_frame", line, sizeof(line)), want);
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "16384", "+299.7%", "65483", "mss_bytes");
	assert_string_equal(line_of(text, "mss_bytes", line, sizeof(line)), want);
	free(text);

	/* repeated runs: "mean ~ sd%" (100, 110: mean 105, sd 7.07 = 6.7%) */
	struct metrics reps[2];
	fill_metrics(&reps[0]);
	fill_metrics(&reps[1]);
	reps[0].v[METRIC_THROUGHPUT_MBPS] = 100;
	reps[1].v[METRIC_THROUGHPUT_MBPS] = 110;
	struct report_side rb = {"base", &sc, reps, 2};
	struct report_side rn = {"new", &sc, &b, 1};
	CAPTURE(text, report_compare(f, &rb, &rn));
	snprintf(want, sizeof(want), "%15s  %9s%16s   %s", "105 ~ 7%", "+1619.0%", "1805",
		 "netperf.Throughput_Mbps");
	assert_string_equal(line_of(text, "netperf.Throughput_Mbps", line, sizeof(line)), want);
	free(text);
}

/* compare says when a side's runs never settled, as a single run does;
 * on one host it leaves out the per-host and steering rows. */
static void test_compare_says_unsettled(void **state)
{
	struct scenario sc;
	struct metrics a, b[2];
	char *text = NULL;
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&a);
	fill_metrics(&b[0]);
	fill_metrics(&b[1]);
	struct report_side base = {"base", &sc, &a, 1};
	struct report_side nw = {"new", &sc, b, 2};
	CAPTURE(text, report_compare(f, &base, &nw));
	assert_null(strstr(text, "Warning"));
	assert_null(strstr(text, "cs_per_s_send"));
	free(text);

	b[1].buffers_settled = 0;
	CAPTURE(text, report_compare(f, &base, &nw));
	assert_non_null(strstr(text, "Warning: new: in 1 of 2 runs autotuning still changed socket buffers"));
	assert_null(strstr(text, "Warning: base"));
	free(text);

	a.buffers_settled = 0;
	sc.link_type = LINK_NIC;
	CAPTURE(text, report_compare(f, &base, &nw));
	assert_non_null(strstr(text, "Warning: base: autotuning still changed socket buffers"));
	assert_non_null(strstr(text, "cs_per_s_send"));
	free(text);
}

static void test_compare_json(void **state)
{
	struct scenario sc;
	struct metrics a, b;
	json_error_t jerr;
	char *text = NULL;
	(void)state;

	fill_scenario(&sc);
	fill_metrics(&a);
	fill_metrics(&b);
	b.v[METRIC_THROUGHPUT_MBPS] = a.v[METRIC_THROUGHPUT_MBPS] * 1.5;
	a.v[METRIC_CS_PER_S] = 0;
	struct report_side base = {"a", &sc, &a, 1}, nw = {"b", &sc, &b, 1};
	CAPTURE(text, report_compare_json(f, &base, &nw));
	json_t *o = json_loads(text, 0, &jerr);
	assert_non_null(o);
	json_t *chg = json_object_get(o, "change_pct");
	assert_true(fabs(json_number_value(json_object_get(chg, "throughput_mbps")) - 50) < 1e-9);
	assert_true(json_is_null(json_object_get(chg, "cs_per_s")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "new"), "name")), "b");
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "base"), "runs")), 1);
	json_decref(o);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_table_contract),
		cmocka_unit_test(test_metric_find),
		cmocka_unit_test(test_csv_header_and_row),
		cmocka_unit_test(test_csv_extra_columns),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_timeline_round_trip),
		cmocka_unit_test(test_chargelog_round_trip),
		cmocka_unit_test(test_table_netperf_row),
		cmocka_unit_test(test_change_pct),
		cmocka_unit_test(test_compare_layout),
		cmocka_unit_test(test_compare_says_unsettled),
		cmocka_unit_test(test_compare_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
