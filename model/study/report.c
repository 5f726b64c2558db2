/*
 * report: formatting of struct metrics (see report.h for the contract).
 *
 * The table imitates what a kernel engineer already reads: netperf's
 * "-c -C" result block (netperf 2.x, TCP_STREAM/TCP_SENDFILE with CPU
 * utilisation and service demand on both ends), LKP's counter names, and
 * LKP's two-column comparison ("base  +x.x%  new  name").  Nothing here
 * computes a model quantity except LKP totals (rate * lkp_seconds), the
 * per-side mean/sd of repeated runs and percent changes.
 */
#include "report.h"

#include <csv.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

#include "cost.h"
#include "costcat.h"
#include "util.h"

static const char *const ctx_names[3] = {"hardirq", "softirq", "process"};

static int stream_status(FILE *f)
{
	return ferror(f) ? -1 : 0;
}

static const char *test_name(enum app_test t)
{
	return t == APP_TCP_SENDFILE ? "TCP_SENDFILE" : "TCP_STREAM";
}

static int host_count(const struct scenario *sc)
{
	return sc->link_type == LINK_NIC ? 2 : 1;
}

static const char *host_role(const struct scenario *sc, int h)
{
	if (sc->link_type != LINK_NIC)
		return "sender+receiver";
	return h == 0 ? "sender" : "receiver";
}

/* Host CPU count, clamped to what struct metrics can hold. */
static int host_cpus(const struct scenario *sc, int h)
{
	int n = sc->host[h].cpus;
	if (n < 0)
		return 0;
	return n > SCENARIO_MAX_CPUS ? SCENARIO_MAX_CPUS : n;
}

/* "softirqs/s" -> "softirqs": the unit of an LKP total. */
static void unit_of_total(const char *rate_unit, char *buf, size_t n)
{
	size_t len = strlen(rate_unit);
	if (len >= 2 && strcmp(rate_unit + len - 2, "/s") == 0)
		len -= 2;
	snprintf(buf, n, "%.*s", (int)len, rate_unit);
}

double report_lkp_value(const struct scenario *sc, const struct metrics *m, int id)
{
	INVARIANT(id >= 0 && id < METRIC_N, "metric id %d", id);
	if (metric_table[id].lkp_name && metric_table[id].lkp_total)
		return m->v[id] * sc->lkp_seconds;
	return m->v[id];
}

int report_change_pct(double base, double nw, double *pct)
{
	if (!isfinite(base) || !isfinite(nw) || base == 0.0)
		return 0;
	*pct = (nw - base) / fabs(base) * 100.0;
	return 1;
}

void report_change_str(double base, double nw, char *buf, size_t n)
{
	double pct;
	if (!report_change_pct(base, nw, &pct))
		snprintf(buf, n, "-");
	else if (fabs(pct) < 0.05)
		snprintf(buf, n, "0.0%%");
	else
		snprintf(buf, n, "%+.1f%%", pct);
}

/* ---- table ------------------------------------------------------------ */

/* A number as text with fmt, or "-" when it is not finite (e.g. 0/0). */
static const char *num(char *buf, size_t n, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, n, fmt, v);
	else
		snprintf(buf, n, "-");
	return buf;
}

static void table_title(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	const struct host_cfg *h0 = &sc->host[0];
	fprintf(f, "%s TEST, %d instance%s, send size %lld bytes, recv size %lld bytes\n",
		test_name(sc->test), sc->instances, sc->instances == 1 ? "" : "s",
		(long long)sc->send_size, (long long)sc->recv_size);
	if (sc->link_type != LINK_NIC) {
		fprintf(f, "over %s, MTU %d bytes, on '%s' (%d CPUs at %.2f GHz, kernel %s)\n",
			sc->link_type == LINK_VETH ? "a veth pair" : "loopback", sc->mtu_bytes, h0->name, h0->cpus,
			h0->ghz, h0->kernel);
	} else {
		const struct host_cfg *h1 = &sc->host[1];
		fprintf(f, "over a NIC at %.3g Gbit/s, MTU %d bytes, one-way delay %.1f us\n",
			sc->rate_bps / 1e9, sc->mtu_bytes, (double)sc->delay_ns / NS_PER_US);
		fprintf(f, "from '%s' (%d CPUs at %.2f GHz, kernel %s) to '%s' (%d CPUs at %.2f GHz, kernel %s)\n",
			h0->name, h0->cpus, h0->ghz, h0->kernel,
			h1->name, h1->cpus, h1->ghz, h1->kernel);
	}
	fprintf(f, "offloads: TSO %s, GSO %s, GRO %s, LRO %s, checksum %s; throughput is per instance\n\n",
		sc->tso ? "on" : "off", sc->gso ? "on" : "off", sc->gro ? "on" : "off",
		sc->lro ? "on" : "off", sc->csum ? "on" : "off");
	(void)m;
}

/* netperf's "-c -C" block: column heads and one result row. */
static void table_netperf(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	fputs("Recv   Send    Send                          Utilization       Service Demand\n"
	      "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n"
	      "Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
	      "bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB\n\n", f);
	fprintf(f, "%6lld %6lld %6lld    %-6.2f     %7.2f   %-6.2f   %-6.2f   %-6.3f  %-6.3f\n",
		(long long)m->rcvbuf_bytes, (long long)m->sndbuf_bytes, (long long)sc->send_size,
		m->measured_s, m->v[METRIC_THROUGHPUT_MBPS],
		m->v[METRIC_CPU_SEND_PCT], m->v[METRIC_CPU_RECV_PCT],
		m->v[METRIC_SD_SEND_US_PER_KB], m->v[METRIC_SD_RECV_US_PER_KB]);
}

static void table_lkp(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	fprintf(f, "\nLKP counters (totals as over a %g s run at the measured rates; "
		   "vmstat.system.* are per-second means)\n", sc->lkp_seconds);
	for (int i = 0; i < METRIC_N; i++) {
		const struct metric_desc *d = &metric_table[i];
		char unit[32], a[32], b[32];
		if (!d->lkp_name)
			continue;
		if (i == METRIC_HRTIMER_SOFTIRQS_PER_S && m->v[i] == 0)
			continue; /* only a paced socket (tcp.pacing) runs it */
		if (i == METRIC_THROUGHPUT_MBPS) {
			fprintf(f, "  %-28s %14s  %s per instance (all %d: %s %s)\n", d->lkp_name,
				num(a, sizeof(a), "%.2f", m->v[i]), d->unit, sc->instances,
				num(b, sizeof(b), "%.2f", m->v[METRIC_THROUGHPUT_TOTAL_MBPS]), d->unit);
		} else if (d->lkp_total) {
			unit_of_total(d->unit, unit, sizeof(unit));
			fprintf(f, "  %-28s %14s  %s per %g s run (%s %s)\n", d->lkp_name,
				num(a, sizeof(a), "%.0f", report_lkp_value(sc, m, i)), unit, sc->lkp_seconds,
				num(b, sizeof(b), "%.1f", m->v[i]), d->unit);
		} else {
			fprintf(f, "  %-28s %14s  %s (mean of 1 s samples)\n", d->lkp_name,
				num(a, sizeof(a), "%.1f", m->v[i]), d->unit);
		}
	}
}

/* Two hosts: each LKP counter's rate on the sender's host and on the
 * receiver's (what LKP on each machine would report). */
static void table_lkp_hosts(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	if (sc->link_type != LINK_NIC)
		return;
	fprintf(f, "  per host, sender '%s' / receiver '%s':\n", sc->host[0].name, sc->host[1].name);
	for (int i = 0; i < METRIC_SPLIT_N; i++) {
		const struct metric_split *s = &metric_splits[i];
		char a[32], b[32];
		if (s->sum == METRIC_HRTIMER_SOFTIRQS_PER_S && m->v[s->sum] == 0)
			continue;
		fprintf(f, "    %-26s %14s / %s %s\n", metric_table[s->sum].lkp_name,
			num(a, sizeof(a), "%.1f", m->v[s->send]), num(b, sizeof(b), "%.1f", m->v[s->recv]),
			metric_table[s->sum].unit);
	}
}

static void table_mechanics(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	static const struct {
		enum metric_id id;
		const char *label;
		enum { ROW_ALWAYS, ROW_NIC, ROW_KSWAPD } when; /* two-host runs, host.kswapd */
	} rows[] = {
		{METRIC_SEGS_PER_S, "TCP segments sent", ROW_ALWAYS},
		{METRIC_FRAMES_PER_S, "frames sent (GSO/TSO = 1)", ROW_ALWAYS},
		{METRIC_ACKS_PER_S, "pure ACKs sent", ROW_ALWAYS},
		{METRIC_SEGS_PER_FRAME, "segments per frame", ROW_ALWAYS},
		{METRIC_ACKS_PER_FRAME, "ACKs per frame", ROW_ALWAYS},
		{METRIC_GRO_MERGES_PER_S, "LRO/GRO merges", ROW_ALWAYS},
		{METRIC_WIRE_FRAMES_PER_S, "wire frames", ROW_NIC},
		{METRIC_HARDIRQS_PER_S, "device hardirqs", ROW_NIC},
		{METRIC_WAKEUPS_PER_S, "tasks woken", ROW_ALWAYS},
		{METRIC_SND_WAKEUPS_PER_S, "  of them senders", ROW_ALWAYS},
		{METRIC_MIGRATIONS_PER_S, "tasks moved to another CPU", ROW_ALWAYS},
		{METRIC_OFO_PER_S, "frames out of order", ROW_ALWAYS},
		{METRIC_KSWAPD_WAKES_PER_S, "kswapd woken by order-3", ROW_KSWAPD},
	};
	fputs("\nMechanics (all instances, measured interval)\n", f);
	fprintf(f, "  %-28s %14d  bytes (MTU %d, timestamps %s)\n", "MSS", m->mss_bytes,
		sc->mtu_bytes, sc->timestamps ? "on" : "off");
	fprintf(f, "  %-28s %14d  bytes per transmitted frame\n", "size goal", m->size_goal_bytes);
	fprintf(f, "  %-28s %14lld  bytes (sender, end of run)\n", "sndbuf", (long long)m->sndbuf_bytes);
	fprintf(f, "  %-28s %14lld  bytes (receiver, end of run)\n", "rcvbuf", (long long)m->rcvbuf_bytes);
	if (m->ssthresh_segs > 0)
		fprintf(f, "  %-28s %14lld  segments (sender, end of run; ssthresh %lld)\n", "cwnd",
			(long long)m->cwnd_segs, (long long)m->ssthresh_segs);
	else
		fprintf(f, "  %-28s %14lld  segments (sender, end of run; still in slow start)\n", "cwnd",
			(long long)m->cwnd_segs);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		if (rows[i].when == ROW_NIC && sc->link_type != LINK_NIC)
			continue;
		if (rows[i].when == ROW_KSWAPD && !sc->host[0].kswapd && !(sc->link_type == LINK_NIC && sc->host[1].kswapd))
			continue;
		double v = m->v[rows[i].id];
		char a[32];
		fprintf(f, "  %-28s %14s  %s\n", rows[i].label,
			num(a, sizeof(a), fabs(v) < 100 ? "%.3f" : "%.1f", v), metric_table[rows[i].id].unit);
	}
}

/* Indices of the (at most max) largest non-zero categories, largest first. */
static int top_costs(const double *pct, int *idx, int max)
{
	int order[COST_N];
	int n = 0;
	for (int c = 0; c < COST_N; c++) {
		if (!(pct[c] > 0))
			continue;
		/* insertion sort; equal shares keep the lower index first */
		int j = n++;
		while (j > 0 && pct[order[j - 1]] < pct[c]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = c;
	}
	if (n > max)
		n = max;
	memcpy(idx, order, sizeof(int) * (size_t)n);
	return n;
}

/* Host h's busy time by Cai et al.'s categories, all and per role, as columns
 * ordered by the whole host's share. */
static void table_categories(FILE *f, const struct metrics *m, int h)
{
	static const char *const part[3] = {"all contexts", "app (process context)", "irq (hardirq + softirq)"};
	double sh[ROLE_N][CAT_N], all[CAT_N];
	int order[CAT_N];

	costcat_shares((const double(*)[COST_N])m->host_ctx_cost_pct[h], sh);
	for (int c = 0; c < CAT_N; c++)
		all[c] = sh[ROLE_APP][c] + sh[ROLE_IRQ][c];
	costcat_order(all, order);
	fprintf(f, "    %-27s", "by category, % of busy");
	for (int i = 0; i < CAT_N; i++)
		fprintf(f, " %9s", costcat_name(order[i]));
	fputc('\n', f);
	for (int p = 0; p < 3; p++) {
		fprintf(f, "      %-25s", part[p]);
		for (int i = 0; i < CAT_N; i++)
			fprintf(f, " %9.1f", p == 0 ? all[order[i]] : sh[p - 1][order[i]]);
		fputc('\n', f);
	}
}

static void table_cpu(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	fputs("\nWhere the CPU time went (% of all CPU capacity of the host)\n", f);
	for (int h = 0; h < host_count(sc); h++) {
		const double *ctx = m->host_ctx_pct[h];
		int cpus = host_cpus(sc, h);
		int idx[6];
		fprintf(f, "  %s '%s' (%d CPUs): busy %.1f%% = hardirq %.1f%% + softirq %.1f%% + process %.1f%%\n",
			host_role(sc, h), sc->host[h].name, sc->host[h].cpus,
			ctx[0] + ctx[1] + ctx[2], ctx[0], ctx[1], ctx[2]);
		for (int c = 0; c < cpus; c++) {
			if (c % 16 == 0)
				fprintf(f, "    busy %% of CPU %d-%d:", c, c + 15 < cpus ? c + 15 : cpus - 1);
			fprintf(f, " %5.1f", m->cpu_busy_pct[h][c]);
			if (c % 16 == 15 || c == cpus - 1)
				fputc('\n', f);
		}
		if (m->host_cat_pct[h][COST_NOHZ_EXIT] > 0)
			fprintf(f, "    (per CPU as /proc/stat counts it: without do_idle's way out, nohz_exit %.1f%%, "
				   "which is neither busy nor idle there)\n",
				m->host_cat_pct[h][COST_NOHZ_EXIT]);
		int n = top_costs(m->host_cat_pct[h], idx, (int)ARRAY_SIZE(idx));
		fputs("    top costs:", f);
		if (n == 0)
			fputs(" none", f);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s %s %.1f%%", i ? "," : "", cost_table[idx[i]].key,
				m->host_cat_pct[h][idx[i]]);
		fputc('\n', f);
		table_categories(f, m, h);
	}
}

static void table_run(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	const char *bn = m->bottleneck_text[0] ? m->bottleneck_text
		       : bottleneck_kind_name(m->bottleneck);
	fprintf(f, "\nBottleneck: %s\n", bn);
	{
		double pw;
		const char *rg = regime_name(m->v, &pw);
		if (strcmp(rg, "unknown") != 0)
			fprintf(f, "Regime: %s: readers woken %.2f times per write (%s)\n", rg, pw,
				strcmp(rg, "reader-sleeps") == 0 ? "they keep up and wait for data; each wakeup is paid, and its IPI unless the CPU polls"
				: strcmp(rg, "reader-behind") == 0 ? "data queues up, readers never wait"
								   : "between the two steady states");
		if (m->v[METRIC_WRITES_PER_S] > 0)
			fprintf(f, "Window: the senders were stopped by the receiver's window %.1f%% of their busy time "
				   "(tcp_info rwnd_limited / busy_time, as ss -ti shows)\n",
				m->v[METRIC_SND_RWND_LIMITED_PCT]);
	}
	fprintf(f, "Run: warm-up %.3f s, measured %.3f s in %d batches, early stop %s, "
		   "throughput 95%% CI +-%.2f%% of mean, %llu events, seed %llu\n",
		m->warmup_s, m->measured_s, m->batches, m->early_stop ? "yes" : "no",
		m->tput_ci_pct, (unsigned long long)m->events, (unsigned long long)sc->seed);
	if (!m->buffers_settled)
		fprintf(f, "Warning: autotuning still changed socket buffers during the measured interval; "
			   "the rates may not be steady (raise run.duration, or run.settle)\n");
}

int report_table(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	table_title(f, sc, m);
	table_netperf(f, sc, m);
	table_lkp(f, sc, m);
	table_lkp_hosts(f, sc, m);
	table_mechanics(f, sc, m);
	table_cpu(f, sc, m);
	table_run(f, sc, m);
	return stream_status(f);
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_field(FILE *f, int first, const char *s)
{
	if (!first)
		fputc(',', f);
	csv_fwrite(f, s, strlen(s));
}

/* v with printf's fmt ("%.0f": a whole number, exactly), or an empty cell
 * ("not measured", none seen yet) for a non-finite value. */
static void csv_fixed(FILE *f, int first, const char *fmt, double v)
{
	char buf[48] = "";
	if (isfinite(v))
		snprintf(buf, sizeof(buf), fmt, v);
	csv_field(f, first, buf);
}

/* "%.6g", or an empty cell for a non-finite value. */
static void csv_number(FILE *f, int first, double v)
{
	csv_fixed(f, first, "%.6g", v);
}

/* ---- timeline (run --timeline) --------------------------------------- */

int report_timeline(FILE *f, const struct timeline *tl)
{
	static const char *const cols[] = {"t_ms",    "segs",    "kB",     "acks",   "cwnd",  "ssthresh",
					   "srtt_us", "snd_wnd", "rcv_wnd", "rcvbuf", "writes", "reads",
					   "sleeps",  "wakes",   "ipis",    "no_ipi"};
	const struct timeline_step *snd = NULL, *rcv = NULL, *grow = NULL;
	const int ncols = (int)(sizeof(cols) / sizeof(cols[0]));

	for (int i = 0; i < ncols; i++)
		csv_field(f, i == 0, cols[i]);
	fputc('\n', f);
	for (int k = 0; k < tl->nsteps; k++) {
		const struct timeline_step *s = &tl->steps[k];
		snd = s->snd ? s : snd;
		rcv = s->rcv ? s : rcv;
		grow = s->grow ? s : grow;
		csv_fixed(f, 1, "%.3f", (double)(k + 1) * (double)tl->step_ns / 1e6);
		csv_fixed(f, 0, "%.0f", s->segs);
		csv_fixed(f, 0, "%.1f", (double)s->bytes / 1024);
		csv_fixed(f, 0, "%.0f", s->acks);
		csv_fixed(f, 0, "%.0f", snd ? floor(snd->cwnd) : NAN); /* the kernel's whole segments */
		csv_fixed(f, 0, "%.0f", snd ? floor(snd->ssthresh) : NAN);
		csv_fixed(f, 0, "%.0f", snd ? (double)snd->srtt_us : NAN);
		csv_fixed(f, 0, "%.0f", snd ? (double)snd->snd_wnd : NAN);
		csv_fixed(f, 0, "%.0f", rcv ? (double)rcv->rcv_wnd : NAN);
		csv_fixed(f, 0, "%.0f", grow ? (double)grow->rcvbuf : NAN);
		csv_fixed(f, 0, "%.0f", s->writes);
		csv_fixed(f, 0, "%.0f", s->reads);
		csv_fixed(f, 0, "%.0f", s->sleeps);
		csv_fixed(f, 0, "%.0f", s->wakes);
		csv_fixed(f, 0, "%.0f", s->ipis);
		csv_fixed(f, 0, "%.0f", s->no_ipi);
		fputc('\n', f);
	}
	return stream_status(f);
}

/* ---- charge log (run --charges) --------------------------------------- */

int report_chargelog(FILE *f, const struct chargelog *cl)
{
	static const char *const cols[] = {"t_us", "host", "cpu", "context", "cost", "cycles", "step_us"};

	for (int i = 0; i < 7; i++)
		csv_field(f, i == 0, cols[i]);
	fputc('\n', f);
	for (size_t i = 0; i < cl->n; i++) {
		const struct charge_row *r = &cl->rows[i];
		csv_fixed(f, 1, "%.3f", (double)r->t / 1e3);
		csv_fixed(f, 0, "%.0f", r->host);
		csv_fixed(f, 0, "%.0f", r->cpu);
		csv_field(f, 0, r->ctx < sizeof(ctx_names) / sizeof(ctx_names[0]) ? ctx_names[r->ctx] : "");
		csv_field(f, 0, r->cost < COST_N ? cost_table[r->cost].key : "");
		csv_fixed(f, 0, "%.0f", r->cycles);
		csv_fixed(f, 0, "%.3f", (double)r->step_ns / 1e3);
		fputc('\n', f);
	}
	return stream_status(f);
}

int report_csv_header(FILE *f, const char *const *extra_cols, int n)
{
	for (int i = 0; i < n; i++)
		csv_field(f, i == 0, extra_cols[i]);
	for (int i = 0; i < METRIC_N; i++)
		csv_field(f, n == 0 && i == 0, metric_table[i].name);
	fputc('\n', f);
	return stream_status(f);
}

int report_csv_row(FILE *f, const char *const *extra_vals, int n, const struct metrics *m)
{
	for (int i = 0; i < n; i++)
		csv_field(f, i == 0, extra_vals[i] ? extra_vals[i] : "");
	for (int i = 0; i < METRIC_N; i++)
		csv_number(f, n == 0 && i == 0, m->v[i]);
	fputc('\n', f);
	return stream_status(f);
}

int report_csv(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	(void)sc;
	if (report_csv_header(f, NULL, 0) || report_csv_row(f, NULL, 0, m))
		return -1;
	return 0;
}

/* ---- JSON -------------------------------------------------------------- */

static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_cpu_host(const struct scenario *sc, const struct metrics *m, int h)
{
	json_t *o = json_object();
	json_t *ctx = json_object();
	json_t *cat = json_object();
	json_t *busy = json_array();

	json_object_set_new(o, "host", json_integer(h));
	json_object_set_new(o, "role", json_string(host_role(sc, h)));
	json_object_set_new(o, "name", json_string(sc->host[h].name));
	json_object_set_new(o, "cpus", json_integer(sc->host[h].cpus));
	for (int c = 0; c < 3; c++)
		json_object_set_new(ctx, ctx_names[c], json_num(m->host_ctx_pct[h][c]));
	for (int c = 0; c < COST_N; c++)
		json_object_set_new(cat, cost_table[c].key, json_num(m->host_cat_pct[h][c]));
	for (int c = 0; c < host_cpus(sc, h); c++)
		json_array_append_new(busy, json_num(m->cpu_busy_pct[h][c]));
	json_object_set_new(o, "context_pct", ctx);
	json_object_set_new(o, "category_pct", cat);
	json_object_set_new(o, "cpu_busy_pct", busy);
	{ /* Cai et al.'s categories, % of the host's busy time (costcat.h) */
		double sh[ROLE_N][CAT_N];
		json_t *by = json_object();
		costcat_shares((const double(*)[COST_N])m->host_ctx_cost_pct[h], sh);
		for (int p = 0; p < 3; p++) {
			json_t *one = json_object();
			for (int c = 0; c < CAT_N; c++)
				json_object_set_new(one, costcat_name(c),
						    json_num(p == 0 ? sh[ROLE_APP][c] + sh[ROLE_IRQ][c] : sh[p - 1][c]));
			json_object_set_new(by, p == 0 ? "all" : costcat_role_name(p - 1), one);
		}
		json_object_set_new(o, "busy_by_category_pct", by);
	}
	return o;
}

json_t *report_json_object(const struct scenario *sc, const struct metrics *m)
{
	json_t *o = json_object();
	json_t *cpu = json_array();
	unsigned bk = (unsigned)m->bottleneck;

	for (int i = 0; i < METRIC_N; i++)
		json_object_set_new(o, metric_table[i].name, json_num(m->v[i]));
	json_object_set_new(o, "mss_bytes", json_integer(m->mss_bytes));
	json_object_set_new(o, "size_goal_bytes", json_integer(m->size_goal_bytes));
	json_object_set_new(o, "sndbuf_bytes", json_integer(m->sndbuf_bytes));
	json_object_set_new(o, "rcvbuf_bytes", json_integer(m->rcvbuf_bytes));
	json_object_set_new(o, "cwnd_segs", json_integer(m->cwnd_segs));
	/* null: still in slow start (ss -ti prints no ssthresh) */
	json_object_set_new(o, "ssthresh_segs", m->ssthresh_segs > 0 ? json_integer(m->ssthresh_segs) : json_null());
	json_object_set_new(o, "measured_s", json_num(m->measured_s));
	json_object_set_new(o, "warmup_s", json_num(m->warmup_s));
	json_object_set_new(o, "early_stop", json_boolean(m->early_stop));
	json_object_set_new(o, "buffers_settled", json_boolean(m->buffers_settled));
	json_object_set_new(o, "batches", json_integer(m->batches));
	json_object_set_new(o, "tput_ci_pct", json_num(m->tput_ci_pct));
	json_object_set_new(o, "events", json_integer((json_int_t)m->events));
	json_object_set_new(o, "bottleneck", json_string(m->bottleneck_text));
	json_object_set_new(o, "bottleneck_kind",
			    json_string(bottleneck_kind_name(bk)));
	json_object_set_new(o, "bottleneck_host", json_integer(m->bottleneck_host));
	json_object_set_new(o, "bottleneck_cpu", json_integer(m->bottleneck_cpu));
	json_object_set_new(o, "bottleneck_util_pct", json_num(m->bottleneck_util_pct));
	json_object_set_new(o, "lkp_seconds", json_num(sc->lkp_seconds));
	for (int h = 0; h < host_count(sc); h++)
		json_array_append_new(cpu, json_cpu_host(sc, m, h));
	json_object_set_new(o, "cpu", cpu);
	return o;
}

int report_json(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	json_t *o = report_json_object(sc, m);
	int rc = json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	json_decref(o);
	fputc('\n', f);
	return rc ? -1 : stream_status(f);
}

/* ---- folded stacks ------------------------------------------------------ */

/* A frame name without the folded format's separators (';', blanks). */
static void folded_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ? '_' : *s, f);
}

/* One line: ROLE:HOST[;cpuN];CONTEXT;CATEGORY;KEY CYCLES (cpu < 0: none) */
static void folded_line(FILE *f, const struct scenario *sc, int h, int cpu, int x, int k, long long cyc)
{
	folded_frame(f, host_role(sc, h));
	fputc(':', f);
	folded_frame(f, sc->host[h].name);
	if (cpu >= 0)
		fprintf(f, ";cpu%d", cpu);
	fprintf(f, ";%s;%s;%s %lld\n", ctx_names[x], costcat_name(costcat_table[k].cat), cost_table[k].key, cyc);
}

int report_folded(FILE *f, const struct scenario *sc, const struct metrics *m)
{
	for (int h = 0; h < host_count(sc); h++) {
		/* % of capacity back to cycles over the measured interval */
		double cycles_per_pct = m->measured_s * 1e9 * sc->host[h].cpus * sc->host[h].ghz / 100.0;
		for (int x = 0; x < 3; x++)
			for (int k = 0; k < COST_N; k++) {
				long long cyc = llround(m->host_ctx_cost_pct[h][x][k] * cycles_per_pct);
				if (cyc > 0)
					folded_line(f, sc, h, -1, x, k, cyc);
			}
	}
	return stream_status(f);
}

/* The same lines with each CPU a frame of its own under its host's:
 * `receiver:NAME;cpu1;softirq;tcp/ip;rx_frame 123`, so that a pinned
 * writer's and reader's CPUs stand apart as perf's per-CPU profiles do. */
int report_folded_cpus(FILE *f, const struct scenario *sc, const struct cpu_cycles *cc)
{
	for (int h = 0; h < host_count(sc) && h < cc->nhosts; h++)
		for (int i = 0; i < cc->ncpus[h]; i++)
			for (int x = 0; x < 3; x++)
				for (int k = 0; k < COST_N; k++) {
					long long cyc = llround(cpu_cycles_row(cc, h, i)[x][k]);
					if (cyc > 0)
						folded_line(f, sc, h, i, x, k, cyc);
				}
	return stream_status(f);
}

/* ---- compare ----------------------------------------------------------- */

/* LKP-like number: integers from 1000 up, four significant digits below. */
static void fmt_number(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* Rows beyond the metrics: run settings worth seeing change. */
enum { COMPARE_MSS = METRIC_N, COMPARE_SIZE_GOAL, COMPARE_ROWS };

static double side_value(const struct report_side *s, int r, int row)
{
	const struct metrics *m = &s->runs[r];
	if (row == COMPARE_MSS)
		return m->mss_bytes;
	if (row == COMPARE_SIZE_GOAL)
		return m->size_goal_bytes;
	return report_lkp_value(s->sc, m, row);
}

static const char *row_name(int row)
{
	if (row == COMPARE_MSS)
		return "mss_bytes";
	if (row == COMPARE_SIZE_GOAL)
		return "size_goal_bytes";
	return metric_table[row].lkp_name ? metric_table[row].lkp_name : metric_table[row].name;
}

struct compare_cell {
	double mean;
	double sd;      /* sample s.d. over the side's runs; 0 with one run */
	int n;
	char text[48];
};

/*
 * Whether two sides' means differ by more than their runs' spread: Welch's
 * t-test at 95% (two-sided), Welch-Satterthwaite degrees of freedom; a
 * side of one run adds no variance.  With one run on each side there is
 * no noise estimate and every difference counts, as before.
 */
static int exceeds_noise(const struct compare_cell *b, const struct compare_cell *n)
{
	double vb = b->n > 1 ? b->sd * b->sd / b->n : 0;
	double vn = n->n > 1 ? n->sd * n->sd / n->n : 0;
	double se2 = vb + vn, df, t;

	if (!isfinite(b->mean) || !isfinite(n->mean))
		return 1;
	if (b->n < 2 && n->n < 2)
		return 1;
	if (!(se2 > 0))
		return b->mean != n->mean;
	df = se2 * se2 / ((b->n > 1 ? vb * vb / (b->n - 1) : 0) + (n->n > 1 ? vn * vn / (n->n - 1) : 0));
	t = gsl_cdf_tdist_Pinv(0.975, df);
	return fabs(n->mean - b->mean) > t * sqrt(se2);
}

/* Mean of the side's runs, as "mean" or "mean ~ sd%" when n > 1. */
static void side_cell(const struct report_side *s, int row, struct compare_cell *c)
{
	int n = s->n;
	double *v = xmalloc(sizeof(double) * (size_t)n);
	int finite = 1;
	for (int r = 0; r < n; r++) {
		v[r] = side_value(s, r, row);
		finite &= isfinite(v[r]) != 0;
	}
	c->mean = finite ? gsl_stats_mean(v, 1, (size_t)n) : NAN;
	c->n = n;
	c->sd = n > 1 && finite ? gsl_stats_sd_m(v, 1, (size_t)n, c->mean) : 0;
	fmt_number(c->mean, c->text, sizeof(c->text));
	if (n > 1) {
		double sd = finite ? gsl_stats_sd_m(v, 1, (size_t)n, c->mean) : NAN;
		size_t len = strlen(c->text);
		if (finite && c->mean != 0)
			snprintf(c->text + len, sizeof(c->text) - len, " ~%2.0f%%", fabs(sd / c->mean) * 100);
		else
			snprintf(c->text + len, sizeof(c->text) - len, " ~  -");
	}
	free(v);
}

static void dashes(FILE *f, int n)
{
	while (n-- > 0)
		fputc('-', f);
}

/* Rows of the NIC's steering and of the per-host counters. */
static bool row_two_host_only(int row)
{
	return row >= METRIC_RPS_STEERED_PER_S && row < METRIC_N;
}

/* A side whose runs' socket buffers never settled says so, as a single
 * run's report does. */
static void compare_settled(FILE *f, const struct report_side *s)
{
	int n = 0;
	for (int r = 0; r < s->n; r++)
		n += !s->runs[r].buffers_settled;
	if (n == 0)
		return;
	if (s->n == 1)
		fprintf(f, "Warning: %s: autotuning still changed socket buffers during the measured interval; "
			   "the rates may not be steady (raise run.duration, or run.settle)\n", s->name);
	else
		fprintf(f, "Warning: %s: in %d of %d runs autotuning still changed socket buffers during the measured "
			   "interval; the rates may not be steady (raise run.duration, or run.settle)\n", s->name, n, s->n);
}

int report_compare(FILE *f, const struct report_side *base, const struct report_side *nw)
{
	struct compare_cell cb[COMPARE_ROWS], cn[COMPARE_ROWS];
	const int chg_w = 9;
	int wb = 15, wn = 25;

	INVARIANT(base->n >= 1 && nw->n >= 1, "runs %d, %d", base->n, nw->n);
	for (int row = 0; row < COMPARE_ROWS; row++) {
		side_cell(base, row, &cb[row]);
		side_cell(nw, row, &cn[row]);
		if ((int)strlen(cb[row].text) > wb)
			wb = (int)strlen(cb[row].text);
		if ((int)strlen(cn[row].text) + chg_w + 2 > wn)
			wn = (int)strlen(cn[row].text) + chg_w + 2;
	}
	if ((int)strlen(base->name) > wb)
		wb = (int)strlen(base->name);
	if ((int)strlen(nw->name) > wn)
		wn = (int)strlen(nw->name);

	fprintf(f, "%-*s  %s\n", wb, base->name, nw->name);
	dashes(f, wb);
	fputs("  ", f);
	dashes(f, wn);
	fputc('\n', f);
	int noisy = 0;
	for (int row = 0; row < COMPARE_ROWS; row++) {
		char chg[24];
		if (row_two_host_only(row) && base->sc->link_type != LINK_NIC && nw->sc->link_type != LINK_NIC)
			continue; /* on one host: no steering, and each host's counters are the sums */
		if (exceeds_noise(&cb[row], &cn[row])) {
			report_change_str(cb[row].mean, cn[row].mean, chg, sizeof(chg));
		} else {
			snprintf(chg, sizeof(chg), "~");
			noisy++;
		}
		fprintf(f, "%*s  %*s%*s   %s\n", wb, cb[row].text, chg_w, chg,
			wn - chg_w, cn[row].text, row_name(row));
	}
	if (base->n > 1 || nw->n > 1)
		fprintf(f, "\n%d and %d runs (one seed each); ~ in the change column: the difference is within\n"
			   "the runs' spread (Welch t-test, 95%%), %d row%s.\n",
			base->n, nw->n, noisy, noisy == 1 ? "" : "s");
	compare_settled(f, base);
	compare_settled(f, nw);
	return stream_status(f);
}

static json_t *json_side(const struct report_side *s)
{
	json_t *o = json_object();
	json_t *runs = json_array();
	json_object_set_new(o, "name", json_string(s->name));
	for (int r = 0; r < s->n; r++)
		json_array_append_new(runs, report_json_object(s->sc, &s->runs[r]));
	json_object_set_new(o, "runs", runs);
	return o;
}

int report_compare_json(FILE *f, const struct report_side *base, const struct report_side *nw)
{
	json_t *o = json_object();
	json_t *chg = json_object();
	json_t *sig = base->n > 1 || nw->n > 1 ? json_object() : NULL;
	int rc;

	INVARIANT(base->n >= 1 && nw->n >= 1, "runs %d, %d", base->n, nw->n);
	json_object_set_new(o, "base", json_side(base));
	json_object_set_new(o, "new", json_side(nw));
	for (int row = 0; row < COMPARE_ROWS; row++) {
		struct compare_cell cb, cn;
		double pct;
		const char *name = row < METRIC_N ? metric_table[row].name : row_name(row);
		side_cell(base, row, &cb);
		side_cell(nw, row, &cn);
		json_object_set_new(chg, name,
				    report_change_pct(cb.mean, cn.mean, &pct) ? json_real(pct) : json_null());
		if (sig)
			json_object_set_new(sig, name, json_boolean(exceeds_noise(&cb, &cn)));
	}
	json_object_set_new(o, "change_pct", chg);
	if (sig)
		json_object_set_new(o, "change_exceeds_noise", sig);
	rc = json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
	json_decref(o);
	fputc('\n', f);
	return rc ? -1 : stream_status(f);
}
